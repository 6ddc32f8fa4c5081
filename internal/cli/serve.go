package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepush/sitepush/internal/alert"
	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/metrics"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/scheduler"
	"github.com/sitepush/sitepush/internal/server"
	"github.com/sitepush/sitepush/internal/sitechannels"
	"github.com/sitepush/sitepush/internal/sites"
	"github.com/sitepush/sitepush/internal/store"
)

// Bounds of serve's shutdown: the second signal of an impatient user ends it at once anyway.
const (
	shutdownHTTP   = 3 * time.Second // requests in flight
	shutdownRuns   = 4 * time.Second // runs recording what was answered
	shutdownAlerts = 2 * time.Second // alerts queued
	// reloadSites is how often sites created through the API by other instances are read.
	reloadSites = 30 * time.Second
)

// runServe runs the scheduler, the admin API, the feeds and the metrics until a signal.
func runServe(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	path := configFlag(fs)
	if _, err := parseArgs(e, cmd, fs, args, 0, 0); err != nil {
		return err
	}
	cfg, err := loadConfig(*path, config.Everything)
	if err != nil {
		return err
	}
	if cfg.AdminToken == "" {
		return usageError("sitepush serve needs adminToken in %s, the admin API's bearer token: add adminToken: ${SITEPUSH_ADMIN_TOKEN} and set that variable to a long random value", *path)
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	if len(cfg.AdminToken) < 16 {
		logger.Warn("adminToken is shorter than 16 characters: anyone who can reach the API may guess it")
	}
	if cfg.MetricsToken != "" && len(cfg.MetricsToken) < 16 {
		logger.Warn("metricsToken is shorter than 16 characters: anyone who can reach /metrics may guess it")
	}
	st, err := store.Open(e.ctx, cfg.State)
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w (is another sitepush serve running? change listen: in the configuration)", cfg.Listen, err)
	}
	return serve(e.ctx, cfg, st, ln, logger)
}

// serve wires the parts of the server and runs them until ctx ends, then stops them in order:
// the scheduler, the HTTP server, the runs, the alerts.
func serve(ctx context.Context, cfg *config.Config, st *store.Store, ln net.Listener, logger *slog.Logger) error {
	registry := sites.New(cfg, st, logger)
	if err := registry.Load(ctx); err != nil {
		return err
	}
	client := httpClient()
	r := runner.New(st)
	r.Client, r.UserAgent, r.Followers = client, cfg.UserAgent, followers(client, st)
	r.Pages = sitechannels.Pages(client, cfg.UserAgent)
	r.Warn = func(site, msg string) { logger.Warn(msg, "site", site) }
	m := metrics.New(prometheus.NewRegistry(), cfg.Metrics.Sites(), registry.Sites, st, logger)
	r.OnRequest = m.Request
	live := server.NewLive()
	r.Progress, r.OnWait = live.Progress, live.Wait
	alerts := alert.NewQueue(alert.New(cfg.Webhook, client, cfg.UserAgent), logger)

	var api *server.Server
	runs := scheduler.NewRuns(r, func(site *config.Site, only string) []channel.Channel {
		return sitechannels.OnCrawl(sitechannels.For(site, only, client, cfg.UserAgent, st, time.Now()), m.BingCrawled)
	}, func(rec *model.Record) {
		m.RunFinished(rec)
		alerts.Finished(rec)
		api.Invalidate()
	}, logger, cfg.Serve.Concurrency)
	runs.OnStart = func() { api.Invalidate() }
	sched := scheduler.New(registry.Sites, st.LastStarted, runs.Scheduled, logger)
	sched.LastStartedAll = st.LastStartedAll
	wake := atMostEvery(wakeEvery, sched.Wake)
	registry.OnChange = func([]string) { wake() }
	api = server.New(server.Options{Sites: registry, Runs: runs, State: st, Metrics: m.Handler(),
		AdminToken: cfg.AdminToken, MetricsToken: cfg.MetricsToken, Logger: logger, Live: live,
		BingQuota: func(ctx context.Context, site *config.Site) (int, error) {
			left, _, err := bing.New(site, client, cfg.UserAgent, st, time.Now()).Quota(ctx)
			return left, err
		}})

	httpSrv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()
	background, stop := context.WithCancel(context.Background())
	defer stop()
	go sched.Run(background)
	go reload(background, registry, logger)
	logger.Info("sitepush serve started", "listen", ln.Addr().String(), "sites", len(registry.All()), "state", st.Name())

	var err error
	select {
	case <-ctx.Done():
		logger.Info("stopping: no new runs; runs going record what they have (a second signal stops at once)")
	case err = <-served:
		err = fmt.Errorf("the HTTP server stopped: %w", err)
	}
	// No new run, and the runs going told to stop, at once; meanwhile the requests in flight end.
	stop()
	var stopping sync.WaitGroup
	stopping.Go(func() {
		if !runs.Shutdown(shutdownRuns) {
			logger.Warn("stopped with runs still going: what they delivered is recorded; their records are closed by the next run")
		}
	})
	httpCtx, cancel := context.WithTimeout(context.Background(), shutdownHTTP)
	defer cancel()
	if herr := httpSrv.Shutdown(httpCtx); herr != nil && !errors.Is(herr, http.ErrServerClosed) {
		httpSrv.Close()
	}
	stopping.Wait()
	alerts.Close(shutdownAlerts)
	logger.Info("stopped")
	return err
}

// reload reads the API sites that other instances changed, from time to time; the registry tells
// the scheduler what it found (OnChange).
func reload(ctx context.Context, registry *sites.Registry, logger *slog.Logger) {
	t := time.NewTicker(reloadSites)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := registry.Load(ctx); err != nil && ctx.Err() == nil {
				logger.Error("reading the sites created through the API", "err", err)
			}
		}
	}
}
