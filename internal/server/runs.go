package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/scheduler"
)

// trigger starts a run now and answers 202 with its id once it holds the site's lease; with every
// slot taken, it queues the run and answers 202, queued.
func (s *Server) trigger(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		w.Header().Set("Allow", "GET, POST")
		answer.WriteError(w, http.StatusMethodNotAllowed, "HEAD /trigger is not allowed, as it would start a run; use GET or POST")
		return
	}
	id := r.URL.Query().Get("site")
	if id == "" {
		answer.NoTriggerSite(w)
		return
	}
	e, ok := s.sites.Get(id)
	if !ok {
		s.noSite(w, id)
		return
	}
	site, id := e.Site, e.Site.ID
	channel, ok := answer.TriggerChannel(w, site, r.URL.Query().Get("channel"))
	if !ok {
		return
	}
	runID, err := s.runs.Trigger(site, channel)
	if s.notStarted(w, id, err) {
		return
	}
	answer.Triggered(w, runID, id, channel)
}

// notStarted answers why a run of site id did not start, when err says it did not, and reports
// whether it answered.
func (s *Server) notStarted(w http.ResponseWriter, id string, err error) bool {
	switch {
	case errors.Is(err, runner.ErrBusy):
		answer.Errorf(w, http.StatusConflict, "site %q is being run now; try again when that run ends (GET /status?site=%s)", id, id)
	case errors.Is(err, scheduler.ErrQueued):
		answer.Errorf(w, http.StatusConflict, "a triggered run of site %q waits in the queue already (every slot of serve.concurrency is taken); it starts when one is free (GET /status?site=%s)", id, id)
	case errors.Is(err, runner.ErrFirstRunPending):
		answer.WriteError(w, http.StatusConflict, err.Error())
	case errors.Is(err, scheduler.ErrStopping):
		answer.WriteError(w, http.StatusServiceUnavailable, err.Error())
	case err != nil:
		s.logger.Error("starting a run", "site", id, "err", err)
		answer.Errorf(w, http.StatusServiceUnavailable, "the run could not start: %v", err)
	default:
		s.cache.invalidate()
		return false
	}
	return true
}

// siteRuns answers a site's execution history, newest first.
func (s *Server) siteRuns(w http.ResponseWriter, r *http.Request) {
	e, ok := s.sites.Get(r.PathValue("id"))
	if !ok {
		s.noSite(w, r.PathValue("id"))
		return
	}
	id := e.Site.ID
	limit, ok := answer.IntParam(w, r, "limit", 20, 1, 1000)
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
	answer.WriteJSON(w, http.StatusOK, map[string]any{"site": id, "runs": runs})
}

// healthz answers 200 when the state answers a query within two seconds.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.state.Ping(ctx); err != nil {
		s.logger.Error("health check: the state does not answer", "err", err)
		answer.WriteError(w, http.StatusServiceUnavailable, "the state does not answer (see the server's log)")
		return
	}
	answer.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
