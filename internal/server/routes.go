package server

import (
	"net/http"

	"github.com/sitepush/sitepush/internal/answer"
)

// Handler returns the server's routes. Admin routes need the bearer token; the dashboard also
// takes the session cookie its login form sets; /metrics needs metricsToken when it is set.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /metrics", s.metricsHandler())
	// ServeMux cannot match "{id}.xml": the handler strips the extension.
	mux.HandleFunc("GET /feeds/{file}", s.feed)

	mux.Handle("GET /status", s.admin(s.status))
	mux.Handle("GET /trigger", s.admin(s.trigger))
	mux.Handle("POST /trigger", s.admin(s.trigger))
	mux.Handle("GET /api/sites", s.admin(s.listSites))
	mux.Handle("POST /api/sites", s.admin(s.createSite))
	mux.Handle("GET /api/sites/{id}", s.admin(s.getSite))
	mux.Handle("PUT /api/sites/{id}", s.admin(s.replaceSite))
	mux.Handle("DELETE /api/sites/{id}", s.admin(s.deleteSite))
	mux.Handle("GET /api/sites/{id}/runs", s.admin(s.siteRuns))
	mux.Handle("GET /api/sites/{id}/urls", s.admin(s.urlStory))
	mux.Handle("POST /api/sites/{id}/urls", s.admin(s.submitURLs))
	mux.Handle("GET /api/stats/daily", s.admin(s.dailyStats))

	mux.HandleFunc("GET /{$}", s.withSession(s.overview))
	mux.HandleFunc("GET /sites/{id}", s.withSession(s.sitePageHandler))
	mux.HandleFunc("GET /sites/{id}/urls", s.withSession(s.urlStories))
	mux.HandleFunc("GET /runs/{id}", s.withSession(s.runPageHandler))
	mux.HandleFunc("POST /sites/{id}/run", s.withForm(s.runNow))
	mux.HandleFunc("POST /sites/{id}/retry", s.withForm(s.retryFailed))
	mux.HandleFunc("POST /sites/{id}/resubmit", s.withForm(s.resubmit))
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	return nosniff(answer.JSONErrors(mux))
}

// nosniff has every answer say X-Content-Type-Options: nosniff, so that a browser takes it as the
// type it says and never guesses another from its bytes: a page, a feed or an error is never run
// as a script or a page of another kind.
func nosniff(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// metricsHandler serves the metrics: openly, as Prometheus expects by default, or behind
// metricsToken (or the admin token) when it is set.
func (s *Server) metricsHandler() http.Handler {
	if s.metricsToken == "" {
		return s.metrics
	}
	return s.withBearer("/metrics needs the header Authorization: Bearer METRICS_TOKEN (metricsToken in the configuration)",
		s.metrics, s.metricsToken, s.token)
}
