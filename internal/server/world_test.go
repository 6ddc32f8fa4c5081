package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/metrics"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/scheduler"
	"github.com/sitepush/sitepush/internal/sites"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

const (
	token   = "test-admin-token-123"
	siteKey = "c1b2c3d4e5f6a7b8c9d0"
	bingKey = "bing-key-abcdef"
)

// world is a website, IndexNow and Bing on loopback, and a server over a real store: what
// sitepush serve wires, without the process.
type world struct {
	t      *testing.T
	site   *httptest.Server
	files  enginetest.Files
	engine *enginetest.IndexNow
	bing   *enginetest.Bing
	store  *store.Store
	state  string // the store's state, for another process's store
	runs   *scheduler.Runs
	api    *Server
	http   *httptest.Server
	config *config.Config
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, files: enginetest.Files{"/" + siteKey + ".txt": siteKey}, state: storetest.State(t)}
	var err error
	if w.store, err = store.Open(context.Background(), w.state); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.store.Close() })
	w.site = httptest.NewServer(w.files)
	t.Cleanup(w.site.Close)
	w.engine = &enginetest.IndexNow{FetchKey: enginetest.FetchOverHTTP}
	engine := httptest.NewServer(w.engine)
	t.Cleanup(engine.Close)
	w.bing = &enginetest.Bing{Keys: map[string]int{bingKey: 100}}
	bingSrv := httptest.NewServer(w.bing)
	t.Cleanup(bingSrv.Close)
	var posts strings.Builder
	posts.WriteString("<urlset>")
	for i := range 25 {
		fmt.Fprintf(&posts, "<url><loc>%s/blog/post-%d</loc><lastmod>2026-05-%02d</lastmod></url>", w.site.URL, i, i+1)
	}
	posts.WriteString("</urlset>")
	w.files["/sitemap.xml"] = posts.String()

	dir := t.TempDir()
	doc := fmt.Sprintf(`defaults:
  indexnow: {endpoints: [%s/indexnow], interval: 1ms, backoff: [1ms]}
sites:
  - id: filesite
    sitemaps: [%s/sitemap.xml]
    schedule: "0 0 1 1 *"
    indexnow: {enabled: true, key: %s}
    bing: {enabled: true, apiKey: %s, dailyQuota: 40, endpoint: %s}
    feed: {enabled: true, title: Files, fetchTitles: false}
`, engine.URL, w.site.URL, siteKey, bingKey, bingSrv.URL)
	cfg, err := config.Parse([]byte(doc), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.config = cfg
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	registry := sites.New(cfg, w.store, logger)
	if err := registry.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := runner.New(w.store)
	m := metrics.New(prometheus.NewRegistry(), config.DefaultPerSite, registry.Sites, w.store, logger)
	r.OnRequest = m.Request
	live := NewLive()
	r.Progress, r.OnWait = live.Progress, live.Wait
	client := http.DefaultClient
	w.runs = scheduler.NewRuns(r, func(site *config.Site, only string) []channel.Channel {
		var out []channel.Channel
		if site.IndexNow.Enabled && (only == "all" || only == "indexnow") {
			out = append(out, indexnow.New(site, client, "sitepush-test"))
		}
		if site.Bing.Enabled && (only == "all" || only == "bing") {
			out = append(out, bing.New(site, client, "sitepush-test", w.store, time.Now()))
		}
		if site.Feed.Enabled && (only == "all" || only == "feed") {
			out = append(out, feed.New(site, client, "sitepush-test", w.store, time.Now()))
		}
		return out
	}, func(rec *model.Record) {
		m.RunFinished(rec)
		w.api.Invalidate()
	}, logger, 2)
	t.Cleanup(func() { w.runs.Shutdown(5 * time.Second) })
	w.api = New(Options{Sites: registry, Runs: w.runs, State: w.store, Metrics: m.Handler(), AdminToken: token, Logger: logger, Live: live,
		BingQuota: func(ctx context.Context, site *config.Site) (int, error) {
			left, _, err := bing.New(site, client, "sitepush-test", w.store, time.Now()).Quota(ctx)
			return left, err
		}})
	w.http = httptest.NewServer(w.api.Handler())
	t.Cleanup(w.http.Close)
	return w
}

// call makes a request with the admin token (unless tok is given) and returns the status and body.
func (w *world) call(method, path, body string, tok ...string) (int, string) {
	w.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, w.http.URL+path, rd)
	if err != nil {
		w.t.Fatal(err)
	}
	bearer := token
	if len(tok) > 0 {
		bearer = tok[0]
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitFinished waits until the site's last run has ended.
func (w *world) waitFinished(site string) {
	w.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, ok := w.runs.Active(site); ok {
			continue
		}
		runs, err := w.store.Runs(context.Background(), site, 1)
		if err == nil && len(runs) == 1 && !runs[0].FinishedAt.IsZero() {
			return
		}
	}
	w.t.Fatal("the run did not end within 10 s")
}
