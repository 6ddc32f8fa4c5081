package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/metrics"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/scheduler"
	"github.com/sitepush/sitepush/internal/sites"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// BenchmarkPages measures the server-side time of each dashboard page, uncached, with 100 sites
// and 90 days of history, one of them (site-000) with SITEPUSH_BENCH_URLS URLs in its catalogue
// (1,000,000 unless set) of which 1% failed on IndexNow.
func BenchmarkPages(b *testing.B) {
	const nSites, days = 100, 90
	nURLs := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("SITEPUSH_BENCH_URLS")); err == nil {
		nURLs = v
	}
	st := storetest.Open(b)
	cfg := benchSites(b, st, nSites, days)
	ctx := context.Background()
	now := time.Now().UTC()
	const batch = 10_000
	for from := 0; from < nURLs; from += batch {
		pages := make([]channel.Page, 0, batch)
		var failed []channel.Due
		for i := from; i < min(nURLs, from+batch); i++ {
			u := fmt.Sprintf("https://s0.example/posts/%07d", i)
			h := runner.URLHash([]byte(u))
			pages = append(pages, channel.Page{URL: u, Hash: h, Lastmod: now.Add(-time.Hour)})
			if i%100 == 0 {
				failed = append(failed, channel.Due{Hash: h})
			}
		}
		if _, err := st.SyncCatalog(ctx, "site-000", now, pages, config.Channels, false); err != nil {
			b.Fatal(err)
		}
		due := make([]channel.Due, len(pages))
		for i, p := range pages {
			due[i] = channel.Due{Hash: p.Hash, Lastmod: p.Lastmod}
		}
		st.RecordOutcome(ctx, "site-000", now, channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true})
		st.RecordOutcome(ctx, "site-000", now, channel.Outcome{Channel: "indexnow", URLs: failed, Err: "HTTP 503 from https://e/indexnow"})
	}
	api := benchServer(b, cfg, st)
	handler := api.Handler()
	recs, _ := st.Runs(ctx, "site-000", 1)
	for _, path := range []string{"/", "/sites/site-000", "/sites/site-042", "/runs/" + strconv.FormatInt(recs[0].ID, 10),
		"/sites/site-000/urls?q=https://s0.example/posts/0004200", "/sites/site-000/urls?q=https://s0.example/posts/00042"} {
		b.Run(strings.NewReplacer("/", "_", "?", "_").Replace(path), func(b *testing.B) {
			for b.Loop() {
				api.Invalidate()
				req := httptest.NewRequest("GET", path, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", path, rec.Code)
				}
			}
		})
	}
}

// BenchmarkOverviewFleet measures GET / uncached with SITEPUSH_BENCH_SITES sites (2,000 unless
// set), each with one run, a quarter of them failed, and reports the page's size.
func BenchmarkOverviewFleet(b *testing.B) {
	nSites := 2_000
	if v, err := strconv.Atoi(os.Getenv("SITEPUSH_BENCH_SITES")); err == nil {
		nSites = v
	}
	st := storetest.Open(b)
	ctx := context.Background()
	var doc strings.Builder
	doc.WriteString("sites:\n")
	start := time.Now().UTC().Add(-time.Hour)
	for s := range nSites {
		id := fmt.Sprintf("site-%05d", s)
		fmt.Fprintf(&doc, "  - {id: %s, sitemaps: [https://s%d.example/sitemap.xml], bing: {enabled: true, apiKey: k%d}, feed: {enabled: true}}\n", id, s, s)
		rec := &model.Record{Site: id, Trigger: "schedule", StartedAt: start, Status: model.StatusRunning}
		if err := st.SaveRun(ctx, rec); err != nil {
			b.Fatal(err)
		}
		rec.FinishedAt, rec.Status = start.Add(time.Minute), model.StatusOK
		rec.Channels, rec.Errors = map[string]*model.ChannelStats{"indexnow": {Due: 20, Submitted: 20}}, []string{}
		if s%4 == 0 {
			rec.Status, rec.Errors = model.StatusFailed, []string{"indexnow: HTTP 503 from https://e/indexnow"}
		}
		if err := st.SaveRun(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
	cfg, err := config.Parse([]byte(doc.String()), b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	api := benchServer(b, cfg, st)
	handler := api.Handler()
	size := 0
	for b.Loop() {
		api.Invalidate()
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET /: %d", rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
}

// benchServer is serve's server over cfg's sites and st, as a benchmark reads its pages: no runs.
func benchServer(b *testing.B, cfg *config.Config, st *store.Store) *Server {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	registry := sites.New(cfg, st, logger)
	if err := registry.Load(context.Background()); err != nil {
		b.Fatal(err)
	}
	runs := scheduler.NewRuns(runner.New(st), func(*config.Site, string) []channel.Channel { return nil }, nil, logger, 1)
	m := metrics.New(prometheus.NewRegistry(), config.DefaultPerSite, registry.Sites, st, logger)
	return New(Options{Sites: registry, Runs: runs, State: st, Metrics: m.Handler(), AdminToken: token, Logger: logger})
}
