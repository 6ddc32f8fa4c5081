// Package server is sitepush serve's HTTP side: the admin JSON API, the feeds, the metrics and a
// read-only dashboard. routes.go lists every route. Every answer is JSON but the feeds, the
// metrics and the dashboard; every error is {"error": "…"} with a status that fits, 404 and 405
// included. Keys are masked in every answer.
package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/sites"
	"github.com/sitepush/sitepush/internal/store"
)

// Runs starts runs and tells which are going in this process.
type Runs interface {
	Trigger(site *config.Site, channel string) (int64, error)
	Submit(site *config.Site, channel string, urls []string, force bool) (int64, error)
	RetryFailed(site *config.Site, channel string) (int64, error)
	Active(site string) (int64, bool)
}

// Server answers HTTP requests. Create it with New.
type Server struct {
	sites   *sites.Registry
	runs    Runs
	state   *store.Store
	metrics http.Handler
	token   string
	// metricsToken, when set, is the bearer token /metrics needs (the admin token works too).
	metricsToken string
	// guesses counts wrong tokens per client address; origins refuses forms sent from other sites.
	guesses *guesses
	origins *http.CrossOriginProtection
	logger  *slog.Logger
	now     func() time.Time
	cache   *cache
	// bingQuota asks Bing what a site may still submit today; its answers are kept a while.
	bingQuota func(ctx context.Context, site *config.Site) (int, error)
	bing      *cache
	// started is when the configuration file was read: its sites' feeds may have changed then.
	started time.Time
	// going holds what the runs going have done so far; nil: their pages show their start only.
	going *Live
}

// Options are the parts of a Server.
type Options struct {
	Sites      *sites.Registry
	Runs       Runs
	State      *store.Store
	Metrics    http.Handler
	AdminToken string
	// MetricsToken, when set, is the bearer token GET /metrics needs; empty leaves it open.
	MetricsToken string
	Logger       *slog.Logger
	// BingQuota, when set, asks Bing (GetUrlSubmissionQuota) how many URLs a site may still
	// submit today, for /status and the dashboard; its answers are kept in the state.
	BingQuota func(ctx context.Context, site *config.Site) (int, error)
	// Live, when set, is told by the runner what the runs going do (Live.Progress, Live.Wait),
	// for their pages.
	Live *Live
}

// New returns a server.
func New(o Options) *Server {
	return &Server{sites: o.Sites, runs: o.Runs, state: o.State, metrics: o.Metrics, token: o.AdminToken,
		metricsToken: o.MetricsToken, guesses: newGuesses(), origins: http.NewCrossOriginProtection(), logger: o.Logger, now: time.Now, cache: newCache(time.Second, o.State.Mark),
		bingQuota: o.BingQuota, bing: newCache(bingAsked, nil), started: time.Now(), going: o.Live}
}

// Invalidate drops what the server cached: a run started or ended, so statuses, statistics and
// feeds changed.
func (s *Server) Invalidate() {
	s.cache.invalidate()
	s.bing.invalidate()
}
