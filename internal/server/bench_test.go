package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
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

// history fills a store with days of history of n sites: a run every 6 hours, and each day's
// statistics of three channels and their endpoints; the runs of a quarter of the sites failed
// these last two days.
func history(b *testing.B, st *store.Store, n, days int) {
	b.Helper()
	ctx := context.Background()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	for s := range n {
		site := fmt.Sprintf("site-%03d", s)
		for d := days - 1; d >= 0; d-- {
			day := today.AddDate(0, 0, -d)
			for _, ch := range config.Channels {
				due := make([]channel.Due, 20)
				for i := range due {
					due[i].Hash = int64(d*100 + i)
				}
				st.RecordOutcome(ctx, site, day.Add(time.Hour), channel.Outcome{Channel: ch, URLs: due, Delivered: true})
				st.RecordRequests(ctx, site, day.Add(time.Hour), []channel.Request{{Channel: ch, Endpoint: "https://e/" + ch, URLs: 20, Accepted: true}})
			}
			for h := 0; h < 24; h += 6 {
				start := day.Add(time.Duration(h) * time.Hour)
				rec := &model.Record{Site: site, Trigger: "schedule", StartedAt: start, Status: model.StatusRunning}
				if err := st.SaveRun(ctx, rec); err != nil {
					b.Fatal(err)
				}
				rec.FinishedAt, rec.Status = start.Add(time.Minute), model.StatusOK
				rec.Channels, rec.Errors = map[string]*model.ChannelStats{"indexnow": {Due: 20, Submitted: 20}}, []string{}
				if s%4 == 0 && d < 2 { // a quarter of the sites failing for two days: the overview counts their failures in a row
					rec.Status, rec.Errors = model.StatusFailed, []string{"indexnow: HTTP 503 from https://e/indexnow"}
				}
				if err := st.SaveRun(ctx, rec); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkAPIUnderLoad measures /status?site=ID and /api/stats/daily with 100 sites and 90 days
// of history, 200 clients at once over loopback, the clients on the same two cores as the server.
// closed: each client sends its next request as soon as the last is answered, as fast as the
// machine goes; paced: the 200 clients send 4,000 (or 100) requests a second together, the
// state unchanged or changing (a run recording outcomes). It reports the
// percentiles of the latency clients see and of the time the server takes to answer.
func BenchmarkAPIUnderLoad(b *testing.B) {
	const nSites, days, clients = 100, 90, 200
	st := storetest.Open(b)
	cfg := benchSites(b, st, nSites, days)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	registry := sites.New(cfg, st, logger)
	registry.Load(context.Background())
	runs := scheduler.NewRuns(runner.New(st), func(*config.Site, string) []channel.Channel { return nil }, nil, logger, 1)
	m := metrics.New(prometheus.NewRegistry(), config.DefaultPerSite, registry.Sites, st, logger)
	api := New(Options{Sites: registry, Runs: runs, State: st, Metrics: m.Handler(), AdminToken: token, Logger: logger})
	var served timings
	handler := api.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		handler.ServeHTTP(w, r)
		served.add(time.Since(start))
	}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	paths := []string{"/api/stats/daily?days=7", "/api/stats/daily?days=90", "/api/stats/daily?days=7&site=site-042"}
	for s := range nSites {
		paths = append(paths, fmt.Sprintf("/status?site=site-%03d", s))
	}
	get := func(path string) time.Duration {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("%s: %d", path, resp.StatusCode)
		}
		return time.Since(start)
	}
	for _, p := range paths { // connections and the first answers
		get(p)
	}
	load := func(b *testing.B, interval time.Duration, changing bool) {
		served.reset()
		if changing { // a run of site-000 records an outcome every 100 ms, as a big site's run does
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
					due := []channel.Due{{Hash: int64(1_000_000 + i)}}
					st.RecordOutcome(context.Background(), "site-000", time.Now(), channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true})
				}
			}()
		}
		var seen timings
		work := make(chan string, clients)
		var wg sync.WaitGroup
		b.ResetTimer()
		began, cpu := time.Now(), cpuTime()
		for range clients {
			wg.Go(func() {
				for p := range work {
					seen.add(get(p))
				}
			})
		}
		tick := time.Now()
		for range b.N {
			if interval > 0 {
				tick = tick.Add(interval)
				time.Sleep(time.Until(tick))
			}
			work <- paths[rand.IntN(len(paths))]
		}
		close(work)
		wg.Wait()
		elapsed, cpu := time.Since(began), cpuTime()-cpu
		b.StopTimer()
		b.ReportMetric(seen.percentile(0.50), "p50-ms")
		b.ReportMetric(seen.percentile(0.99), "p99-ms")
		b.ReportMetric(served.percentile(0.99), "server-p99-ms")
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
		// The process's CPU, clients included, per second of the run: what answering costs the machine.
		b.ReportMetric(cpu.Seconds()/elapsed.Seconds(), "cpu-s/s")
		b.ReportMetric(0, "ns/op")
	}
	b.Run("closed", func(b *testing.B) { load(b, 0, false) })
	b.Run("paced-4000rps", func(b *testing.B) { load(b, time.Second/4000, false) })
	// Every path about once a second: what keeping the answers fresh costs, the state unchanged,
	// then changing all the time.
	b.Run("paced-100rps", func(b *testing.B) { load(b, time.Second/100, false) })
	b.Run("paced-100rps-changing", func(b *testing.B) { load(b, time.Second/100, true) })
	b.Run("paced-4000rps-changing", func(b *testing.B) { load(b, time.Second/4000, true) })
	// What an answer costs when it is not cached: once per answer and per second at most.
	b.Run("uncached-status", func(b *testing.B) {
		e, _ := registry.Get("site-042")
		for b.Loop() {
			if _, err := api.siteStatus(context.Background(), e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached-stats-90-days", func(b *testing.B) {
		since := time.Now().AddDate(0, 0, -89)
		for b.Loop() {
			if _, err := st.ChannelDays(context.Background(), since, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// timings collects durations from many goroutines.
type timings struct {
	mu sync.Mutex
	d  []time.Duration
}

func (t *timings) add(d time.Duration) {
	t.mu.Lock()
	t.d = append(t.d, d)
	t.mu.Unlock()
}

func (t *timings) reset() {
	t.mu.Lock()
	t.d = t.d[:0]
	t.mu.Unlock()
}

// percentile returns the p-th percentile in milliseconds.
func (t *timings) percentile(p float64) float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	slices.Sort(t.d)
	return float64(t.d[int(p*float64(len(t.d)-1))].Microseconds()) / 1000
}

// benchSites is the configuration of nSites sites, each with days of history in st.
func benchSites(b *testing.B, st *store.Store, nSites, days int) *config.Config {
	var doc strings.Builder
	doc.WriteString("sites:\n")
	for s := range nSites {
		fmt.Fprintf(&doc, "  - {id: site-%03d, sitemaps: [https://s%d.example/sitemap.xml], bing: {enabled: true, apiKey: k%d}, feed: {enabled: true}}\n", s, s, s)
	}
	cfg, err := config.Parse([]byte(doc.String()), b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	history(b, st, nSites, days)
	return cfg
}
