package metrics

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// world is a Metrics over a real store, with a clock the test moves.
type world struct {
	t     *testing.T
	st    *store.Store
	m     *Metrics
	mu    sync.Mutex
	clock time.Time
}

func newWorld(t *testing.T) *world {
	t.Helper()
	cfg, err := config.Parse([]byte(`sites:
  - {id: a, sitemaps: [https://a.example/s.xml]}
  - {id: b, sitemaps: [https://b.example/s.xml], bing: {enabled: true, apiKey: bing-key-123, dailyQuota: 50}}
`), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sites := []*config.Site{&cfg.Sites[0], &cfg.Sites[1]}
	w := &world{t: t, st: storetest.Open(t), clock: t0}
	w.m = New(prometheus.NewRegistry(), config.DefaultPerSite, func() []*config.Site { return sites }, w.st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	w.m.state.now = w.now
	return w
}

func (w *world) now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.clock
}

func (w *world) advance(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.clock = w.clock.Add(d)
}

// goodRun records a run of site that ended well at end, straight in the store.
func (w *world) goodRun(site string, end time.Time) *model.Record {
	w.t.Helper()
	rec := &model.Record{Site: site, Trigger: "schedule", StartedAt: end.Add(-time.Second), Status: model.StatusRunning}
	if err := w.st.SaveRun(context.Background(), rec); err != nil {
		w.t.Fatal(err)
	}
	rec.FinishedAt, rec.Status = end, model.StatusOK
	if err := w.st.SaveRun(context.Background(), rec); err != nil {
		w.t.Fatal(err)
	}
	return rec
}

// scrape returns the metrics text.
func (w *world) scrape() string {
	rec := httptest.NewRecorder()
	w.m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		w.t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// value returns the value of metric{site="site"} in text, or "" when it is absent.
func value(text, metric, site string) string {
	m := regexp.MustCompile(`(?m)^` + metric + `\{site="` + site + `"\} (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1]
}

func seconds(t time.Time) string { return fmt.Sprint(float64(t.UnixMilli()) / 1000) }

// TestStateMetricsAreReadOncePerInterval checks that the metrics read from the state come from
// memory between reads: scrapes cost nothing of the store, however many and however long its
// history, until stateTTL has passed or a run of this process ended.
func TestStateMetricsAreReadOncePerInterval(t *testing.T) {
	w := newWorld(t)
	first := t0.Add(-time.Hour)
	w.goodRun("a", first)
	w.st.ReserveQuota(context.Background(), "b", t0.Format(time.DateOnly), 20, 50)

	text := w.scrape()
	if got := value(text, "sitepush_last_success_timestamp_seconds", "a"); got != seconds(first) {
		t.Fatalf("last success of a = %q, want %s:\n%s", got, seconds(first), text)
	}
	if used, left := value(text, "sitepush_bing_quota_used", "b"), value(text, "sitepush_bing_quota_remaining", "b"); used != "20" || left != "30" {
		t.Errorf("bing quota of b: used %q, remaining %q; want 20 and 30", used, left)
	}
	if got := value(text, "sitepush_bing_quota_used", "a"); got != "" {
		t.Errorf("a site without Bing has a Bing quota: %s", got)
	}

	// Another instance finishes a run: within stateTTL, scrapes answer from memory.
	second := t0.Add(-time.Minute)
	w.goodRun("a", second)
	w.advance(stateTTL / 2)
	if got := value(w.scrape(), "sitepush_last_success_timestamp_seconds", "a"); got != seconds(first) {
		t.Errorf("within %s of the last read, last success of a = %q; want the value read before, %s", stateTTL, got, seconds(first))
	}
	w.advance(stateTTL / 2)
	if got := value(w.scrape(), "sitepush_last_success_timestamp_seconds", "a"); got != seconds(second) {
		t.Errorf("after %s, last success of a = %q; want the state's, %s", stateTTL, got, seconds(second))
	}

	// A run of this process ends: the next scrape reads the state at once.
	third := t0
	w.m.RunFinished(w.goodRun("a", third))
	if got := value(w.scrape(), "sitepush_last_success_timestamp_seconds", "a"); got != seconds(third) {
		t.Errorf("after a run ended here, last success of a = %q; want %s", got, seconds(third))
	}
}

// TestConcurrentScrapes checks that scrapes at once all get the state's values.
func TestConcurrentScrapes(t *testing.T) {
	w := newWorld(t)
	w.goodRun("a", t0)
	var wg sync.WaitGroup
	errs := make(chan string, 50)
	for range 50 {
		wg.Go(func() {
			if got := value(w.scrape(), "sitepush_last_success_timestamp_seconds", "a"); got != seconds(t0) {
				errs <- got
			}
		})
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("a concurrent scrape read last success %q, want %s", got, seconds(t0))
	}
}

// TestARequestAcceptedAfterA429CountsOnce checks that a try the engine asked to wait after is
// counted as a retry, not a failure: a request accepted on its second try counts its URLs once
// accepted, and none failed.
func TestARequestAcceptedAfterA429CountsOnce(t *testing.T) {
	w := newWorld(t)
	const e = "https://engine.example/indexnow"
	w.m.Request("a", channel.Request{Channel: "indexnow", Endpoint: e, URLs: 10, Status: 429, Again: true})
	w.m.Request("a", channel.Request{Channel: "indexnow", Endpoint: e, URLs: 10, Status: 200, Accepted: true, Retry: true})
	text := w.scrape()
	for outcome, want := range map[string]string{"accepted": "10", "retried": "10", "failed": ""} {
		m := regexp.MustCompile(`(?m)^sitepush_url_attempts_total\{[^}]*outcome="` + outcome + `"[^}]*\} (\S+)$`).FindStringSubmatch(text)
		got := ""
		if m != nil {
			got = m[1]
		}
		if got != want {
			t.Errorf("sitepush_url_attempts_total{outcome=%q} = %q, want %q", outcome, got, want)
		}
	}
}

// A crawl first seen after a submission is observed in sitepush_time_to_crawl_seconds.
func TestTimeToCrawl(t *testing.T) {
	w := newWorld(t)
	w.m.BingCrawled("a", 5*time.Hour)
	text := w.scrape()
	for _, want := range []string{`sitepush_time_to_crawl_seconds_count{engine="bing"} 1`, `sitepush_time_to_crawl_seconds_sum{engine="bing"} 18000`,
		`sitepush_time_to_crawl_seconds_bucket{engine="bing",le="21600"} 1`, `sitepush_time_to_crawl_seconds_bucket{engine="bing",le="10800"} 0`} {
		if !strings.Contains(text, want) {
			t.Errorf("the metrics have no line %s", want)
		}
	}
}
