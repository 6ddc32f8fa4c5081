package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/api"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/scheduler"
)

// trigger starts a run now and answers 202 with its id once it holds the site's lease.
func (s *Server) trigger(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		w.Header().Set("Allow", "GET, POST")
		api.WriteError(w, http.StatusMethodNotAllowed, "HEAD /trigger is not allowed, as it would start a run; use GET or POST")
		return
	}
	q := r.URL.Query()
	id, channel := q.Get("site"), q.Get("channel")
	if id == "" {
		api.Errorf(w, http.StatusBadRequest, "site is required: /trigger?site=ID[&channel=all|%s]", strings.Join(config.Channels, "|"))
		return
	}
	e, ok := s.sites.Get(id)
	if !ok {
		s.noSite(w, id)
		return
	}
	id = e.Site.ID
	if channel == "" {
		channel = "all"
	}
	site := e.Site
	switch {
	case channel != "all" && !slices.Contains(config.Channels, channel):
		api.Errorf(w, http.StatusBadRequest, "channel must be one of all, %s; got %q", strings.Join(config.Channels, ", "), channel)
		return
	case channel != "all" && !site.Enabled(channel):
		api.Errorf(w, http.StatusBadRequest, "%s (%s.enabled is false for site %q)", config.ChannelOff(channel), channel, id)
		return
	case !site.Enabled("all"):
		api.Errorf(w, http.StatusBadRequest, "site %q has no channel enabled: enable %s", id, config.ChannelList())
		return
	}
	runID, err := s.runs.Trigger(site, channel)
	switch {
	case errors.Is(err, runner.ErrBusy):
		api.Errorf(w, http.StatusConflict, "site %q is being run now; try again when that run ends (GET /status?site=%s)", id, id)
		return
	case errors.Is(err, scheduler.ErrStopping):
		api.WriteError(w, http.StatusServiceUnavailable, err.Error())
		return
	case err != nil:
		s.logger.Error("triggering a run", "site", id, "err", err)
		api.Errorf(w, http.StatusServiceUnavailable, "the run could not start: %v", err)
		return
	}
	s.cache.invalidate()
	api.WriteJSON(w, http.StatusAccepted, map[string]any{"runId": runID, "site": id, "channel": channel, "status": model.StatusRunning,
		"statusUrl": "/status?site=" + id})
}

// siteRuns answers a site's execution history, newest first.
func (s *Server) siteRuns(w http.ResponseWriter, r *http.Request) {
	e, ok := s.sites.Get(r.PathValue("id"))
	if !ok {
		s.noSite(w, r.PathValue("id"))
		return
	}
	id := e.Site.ID
	limit, ok := intParam(w, r, "limit", 20, 1, 1000)
	if !ok {
		return
	}
	runs, err := s.state.Runs(r.Context(), id, limit)
	if err != nil {
		s.answer(w, nil, err)
		return
	}
	if runs == nil {
		runs = []model.Record{}
	}
	api.WriteJSON(w, http.StatusOK, map[string]any{"site": id, "runs": runs})
}

// healthz answers 200 when the state answers a query within two seconds.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.state.Ping(ctx); err != nil {
		s.logger.Error("health check: the state does not answer", "err", err)
		api.WriteError(w, http.StatusServiceUnavailable, "the state does not answer (see the server's log)")
		return
	}
	api.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// intParam reads an integer query parameter within [lo, hi], or answers 400.
func intParam(w http.ResponseWriter, r *http.Request, name string, def, lo, hi int) (int, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		api.Errorf(w, http.StatusBadRequest, "%s must be a whole number from %d to %d, got %q", name, lo, hi, v)
		return 0, false
	}
	return n, true
}
