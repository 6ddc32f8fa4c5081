package bing_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestPreflightCostIsTheQuota: a first run of a 200,000-URL site with Bing on and its preflight
// fetches about as many pages as the quota sends, not the site: one page in ten says noindex,
// and the channel takes more from the queue in its place, batch by batch. The figures are
// logged: what a preflight costs such a run.
func TestPreflightCostIsTheQuota(t *testing.T) {
	const urls, quota, latency = 200_000, 100, 20 * time.Millisecond
	var fetches atomic.Int64
	eng := &enginetest.Bing{Keys: map[string]int{"k": quota}}
	mux := http.NewServeMux()
	mux.Handle("/webmaster/", eng)
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/p/", func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		time.Sleep(latency) // a site's answer, roughly
		robots := "index, follow"
		if strings.HasSuffix(r.URL.Path, "0") {
			robots = "noindex"
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><meta name="robots" content="%s"></head><body>page</body></html>`, robots)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	site := &config.Site{ID: "s", BaseURL: srv.URL, Sitemaps: []string{srv.URL + "/sitemap.xml"}, Settings: config.Builtin()}
	site.Bing.Enabled, site.Bing.APIKey, site.Bing.DailyQuota = true, "k", quota
	site.Bing.Endpoint = srv.URL + "/webmaster/api.svc/json"
	if err := site.Validate(); err != nil {
		t.Fatal(err)
	}
	due := make([]channel.Due, urls)
	for i := range due {
		due[i] = channel.Due{Hash: int64(i + 1), URL: fmt.Sprintf("%s/p/%d", srv.URL, i),
			Lastmod: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)}
	}
	// The same run without a preflight, in a state of its own: what the preflight adds to it.
	start := time.Now()
	if _, err := enginetest.Deliver(bing.New(site, srv.Client(), "sitepush-test", storetest.Open(t), time.Now()),
		enginetest.Queue("s", due...), site.RunBudget.D()); err != nil {
		t.Fatal(err)
	}
	without := time.Since(start)
	eng.Keys["k"] = 2 * quota // a new day's quota, as far as Bing tells
	sentBefore := len(eng.Accepted())

	ch := bing.New(site, srv.Client(), "sitepush-test", storetest.Open(t), time.Now())
	ch.Preflight(preflight.New(srv.Client(), "sitepush-test"))
	start = time.Now()
	rep, err := enginetest.Deliver(ch, enginetest.Queue("s", due...), site.RunBudget.D())
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	sent := eng.Accepted()[sentBefore:]
	t.Logf("%d URLs due, quota %d: %d pages fetched (%d not eligible), %d sent, %d held, in %v (without a preflight %v; %v a page)",
		urls, quota, fetches.Load(), rep.Ineligible(), len(sent), rep.Held(), took.Round(time.Millisecond), without.Round(time.Millisecond), latency)
	if len(sent) != quota {
		t.Errorf("sent %d URLs, want the quota, %d", len(sent), quota)
	}
	for _, u := range sent {
		if strings.HasSuffix(u, "0") {
			t.Errorf("sent %s, whose page says noindex", u)
		}
	}
	if n := fetches.Load(); n > 2*quota {
		t.Errorf("fetched %d pages for a quota of %d: a preflight must cost about the quota, not the site", n, quota)
	}
}
