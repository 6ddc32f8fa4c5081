package indexnow_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

const key = "a1b2c3d4e5f6a7b8c9d0"

// world is one site, its sitemap file, a strict engine in-process, a real store and a runner.
type world struct {
	t       *testing.T
	dir     string
	site    *config.Site
	engines map[string]*enginetest.IndexNow
	keyFile string
	runner  *runner.Runner
	client  *http.Client
	lastmod map[string]string
}

// newWorld configures site "s" with the given indexnow settings (YAML flow mapping entries).
func newWorld(t *testing.T, indexnowYAML string, endpoints ...string) *world {
	if len(endpoints) == 0 {
		endpoints = []string{"https://engine.example/indexnow"}
	}
	w := &world{t: t, dir: t.TempDir(), engines: map[string]*enginetest.IndexNow{}, keyFile: key, lastmod: map[string]string{}}
	mux := http.NewServeMux()
	for _, e := range endpoints {
		eng := &enginetest.IndexNow{FetchKey: func(string) (string, error) { return w.keyFile, nil }}
		w.engines[e] = eng
		mux.Handle(strings.TrimPrefix(e, "https://"), eng) // host and path
	}
	w.client = enginetest.Client(mux)
	cfg := fmt.Sprintf(`state: sqlite:state.db
defaults:
  indexnow: {endpoints: [%s], %s}
sites:
  - id: s
    sitemaps: [sitemap.txt]
    baseUrl: https://www.example.com
    indexnow: {enabled: true, key: %s}
`, strings.Join(endpoints, ", "), indexnowYAML, key)
	os.WriteFile(filepath.Join(w.dir, "sitepush.yaml"), []byte(cfg), 0o644)
	c, err := config.Load(filepath.Join(w.dir, "sitepush.yaml"), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	w.site = &c.Sites[0]
	w.runner = runner.New(storetest.Open(t))
	w.runner.Warn = func(site, msg string) { t.Logf("warning: %s: %s", site, msg) }
	return w
}

// publish writes the sitemap: n pages, /p/0 … /p/{n-1}.
func (w *world) publish(n int) []string {
	var urls []string
	var b strings.Builder
	for i := range n {
		u := fmt.Sprintf("https://www.example.com/p/%d", i)
		urls = append(urls, u)
		b.WriteString(u + "\n")
	}
	os.WriteFile(filepath.Join(w.dir, "sitemap.txt"), []byte(b.String()), 0o644)
	return urls
}

func (w *world) run() *model.Record {
	w.t.Helper()
	rec, err := w.runner.Run(context.Background(), w.site, runner.Options{Trigger: "cli",
		Channels: []channel.Channel{indexnow.New(w.site, w.client, "sitepush-test")}})
	if err != nil {
		w.t.Fatal(err)
	}
	return rec
}

func (w *world) engine() *enginetest.IndexNow {
	for _, e := range w.engines {
		return e
	}
	return nil
}

// clientOf returns a client that serves every request with h, in-process.
func clientOf(h http.Handler) *http.Client { return enginetest.Client(h) }

// elapsed measures fake time inside a synctest bubble.
func elapsed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
