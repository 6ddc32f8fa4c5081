package worker

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/runner"
)

// ServeHTTP answers the Worker's routes, as serve does (docs/api.md): /healthz and the feeds
// openly, /status, /trigger and /api/stats/daily with the admin token. Sites come from the
// configuration only: there is no /api/sites to change them. A configuration that does not load
// is every answer.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.err != nil {
		answer.WriteError(w, http.StatusInternalServerError, a.err.Error())
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", a.healthz)
	mux.HandleFunc("GET /feeds/{file}", a.feed)
	mux.Handle("GET /status", a.admin(a.status))
	mux.Handle("GET /trigger", a.admin(a.trigger))
	mux.Handle("POST /trigger", a.admin(a.trigger))
	mux.Handle("GET /api/stats/daily", a.admin(a.dailyStats))
	answer.JSONErrors(mux).ServeHTTP(w, r)
}

// admin lets a request with the admin token through; 401 otherwise.
func (a *App) admin(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.cfg.AdminToken == "" {
			answer.WriteError(w, http.StatusForbidden, "the admin routes are closed: set adminToken in "+ConfigVar+
				" (adminToken: ${SITEPUSH_ADMIN_TOKEN}, and wrangler secret put SITEPUSH_ADMIN_TOKEN)")
			return
		}
		if given, ok := answer.Bearer(r); !ok || !answer.TokenIs(given, a.cfg.AdminToken) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sitepush"`)
			answer.WriteError(w, http.StatusUnauthorized, "this route needs the header Authorization: Bearer ADMIN_TOKEN (adminToken in "+ConfigVar+")")
			return
		}
		h(w, r)
	})
}

// site returns the site a request names, whatever its case, or answers 404.
func (a *App) site(w http.ResponseWriter, id string) (*config.Site, bool) {
	for i := range a.cfg.Sites {
		if strings.EqualFold(a.cfg.Sites[i].ID, id) {
			return &a.cfg.Sites[i], true
		}
	}
	answer.Errorf(w, http.StatusNotFound, "no site %q: the sites are those of %s", id, ConfigVar)
	return nil, false
}

// read answers with what f reads in an invocation of its own; a state that cannot be read is 503.
func (a *App) read(w http.ResponseWriter, r *http.Request, f func(inv *invocation) (any, error)) {
	inv := a.newInvocation(r.Context(), a.env.Now())
	defer a.logged(r.Context(), inv, "request "+r.URL.Path)
	v, err := f(inv)
	if err != nil {
		a.env.Logger.Error("answering a request", "path", r.URL.Path, "err", err)
		answer.WriteError(w, http.StatusServiceUnavailable, "the state could not be read: "+err.Error())
		return
	}
	answer.WriteJSON(w, http.StatusOK, v)
}

func (a *App) healthz(w http.ResponseWriter, r *http.Request) {
	a.read(w, r, func(inv *invocation) (any, error) {
		return map[string]string{"status": "ok"}, inv.state.Ping(r.Context())
	})
}

func (a *App) status(w http.ResponseWriter, r *http.Request) {
	sites := make([]*config.Site, 0, len(a.cfg.Sites))
	if id := r.URL.Query().Get("site"); id != "" {
		site, ok := a.site(w, id)
		if !ok {
			return
		}
		sites = append(sites, site)
	} else {
		for i := range a.cfg.Sites {
			sites = append(sites, &a.cfg.Sites[i])
		}
	}
	a.read(w, r, func(inv *invocation) (any, error) {
		if r.URL.Query().Get("site") != "" {
			return answer.Status(r.Context(), inv.state, sites[0], "config", a.env.Now(), answer.Live{})
		}
		var all []*answer.SiteStatus
		for _, site := range sites {
			st, err := answer.Status(r.Context(), inv.state, site, "config", a.env.Now(), answer.Live{})
			if err != nil { // one site's state that cannot be read hides no other's
				a.env.Logger.Error("reading a site's status", "site", site.ID, "err", err)
				st = &answer.SiteStatus{SiteID: site.ID, Source: "config", Schedule: site.Schedule, Error: err.Error()}
			}
			all = append(all, st)
		}
		return map[string][]*answer.SiteStatus{"sites": all}, nil
	})
}

func (a *App) dailyStats(w http.ResponseWriter, r *http.Request) {
	days, ok := answer.IntParam(w, r, "days", 7, 1, answer.MaxDays)
	if !ok {
		return
	}
	id := r.URL.Query().Get("site")
	if id != "" {
		site, ok := a.site(w, id)
		if !ok {
			return
		}
		id = site.ID
	}
	a.read(w, r, func(inv *invocation) (any, error) {
		return answer.DailyStats(r.Context(), inv.state, days, id, a.env.Now())
	})
}

func (a *App) feed(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutSuffix(r.PathValue("file"), ".xml")
	if !ok {
		answer.Errorf(w, http.StatusNotFound, "no feed at %s: feeds are at /feeds/{site id}.xml", r.URL.Path)
		return
	}
	site, ok := a.site(w, id)
	if !ok {
		return
	}
	inv := a.newInvocation(r.Context(), a.env.Now())
	defer a.logged(r.Context(), inv, "request "+r.URL.Path)
	served := *site
	served.Feed.URL = site.ServedFeedURLFrom(requestOrigin(r))
	f, err := answer.RenderFeed(r.Context(), inv.state, &served, time.Time{})
	switch {
	case err != nil:
		answer.WriteError(w, http.StatusServiceUnavailable, "the state could not be read: "+err.Error())
	case f == nil:
		answer.Errorf(w, http.StatusNotFound, "site %q has no feed: set feed.enabled: true in its configuration", site.ID)
	default:
		f.Serve(w, r)
	}
}

// requestOrigin is the scheme and host a request came to: the Worker's requests carry an absolute
// URL; a test's have the host alone.
func requestOrigin(r *http.Request) (scheme, host string) {
	scheme = r.URL.Scheme
	if scheme == "" {
		scheme = "http"
		if r.TLS != nil {
			scheme = "https"
		}
	}
	return scheme, r.Host
}

// trigger starts a run now, answers 202 once it holds the site's lease, and lets it go on after
// the answer (the invocation waits for it).
func (a *App) trigger(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("site")
	if id == "" {
		answer.NoTriggerSite(w)
		return
	}
	site, ok := a.site(w, id)
	if !ok {
		return
	}
	ch, ok := answer.TriggerChannel(w, site, r.URL.Query().Get("channel"))
	if !ok {
		return
	}
	ctx := context.WithoutCancel(r.Context())
	inv := a.newInvocation(ctx, a.env.Now())
	started, done := make(chan int64, 1), make(chan error, 1)
	var once sync.Once
	finish := func(err error) { once.Do(func() { done <- err }) }
	a.env.WaitUntil(func() {
		defer a.logged(ctx, inv, "triggered run of "+site.ID)
		_, err := a.run(ctx, inv, site, "manual", ch, func(id int64) { started <- id })
		a.plan(ctx, inv, map[string]kvstate.Due{site.ID: a.next(ctx, inv, site)}, false)
		finish(err)
	})
	select {
	case runID := <-started:
		answer.Triggered(w, runID, site.ID, ch)
	case err := <-done:
		select {
		case runID := <-started:
			answer.Triggered(w, runID, site.ID, ch)
		default:
			a.refused(w, site, err)
		}
	}
}

// refused answers a run that could not start.
func (a *App) refused(w http.ResponseWriter, site *config.Site, err error) {
	if errors.Is(err, runner.ErrBusy) {
		answer.Errorf(w, http.StatusConflict, "site %q is being run now; try again when that run ends (GET /status?site=%s)", site.ID, site.ID)
		return
	}
	a.env.Logger.Error("triggering a run", "site", site.ID, "err", err)
	answer.Errorf(w, http.StatusServiceUnavailable, "the run could not start: %v", err)
}
