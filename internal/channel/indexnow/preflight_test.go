package indexnow_test

import (
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// hostSplit hands the requests to host to site, the others to rest.
type hostSplit struct {
	host string
	site http.RoundTripper
	rest http.RoundTripper
}

func (h hostSplit) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host == h.host {
		return h.site.RoundTrip(r)
	}
	return h.rest.RoundTrip(r)
}

// TestPreflightOnEveryEndpoint: with indexnow.preflight on, each page is fetched once however
// many endpoints there are; every endpoint gets only the eligible URLs, and each URL held back is
// reported once, ineligible, not failed; a batch all held back sends nothing.
func TestPreflightOnEveryEndpoint(t *testing.T) {
	w := newWorld(t, func(in *config.IndexNow) { in.BatchSize = 2; in.Preflight = true },
		"https://one.example/indexnow", "https://two.example/indexnow")
	var fetches atomic.Int64
	site := enginetest.Client(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(rw, r)
			return
		}
		fetches.Add(1)
		if strings.HasSuffix(r.URL.Path, "/gone") {
			http.NotFound(rw, r)
			return
		}
		rw.Write([]byte("<html><head><title>A page</title></head></html>"))
	}))
	w.client = &http.Client{Transport: hostSplit{"www.example.com", site.Transport, w.client.Transport}}
	urls := []string{"https://www.example.com/p/gone", "https://www.example.com/q/gone", "https://www.example.com/p/1", "https://www.example.com/p/2", "https://www.example.com/p/3"}
	ch := indexnow.New(w.site, w.client, "sitepush-test")
	ch.Preflight(preflight.New(w.client, "sitepush-test"))
	rep, err := enginetest.Deliver(ch, enginetest.Queue(w.site.ID, w.due(urls)...), w.site.RunBudget.D())
	if err != nil {
		t.Fatal(err)
	}
	want := urls[2:]
	for name, e := range w.engines {
		got := e.Accepted()
		slices.Sort(got)
		if !slices.Equal(got, want) || len(e.Submissions()) != 2 {
			t.Errorf("%s got %v in %d requests, want %v in 2", name, got, len(e.Submissions()), want)
		}
	}
	for _, o := range rep.Outcomes() {
		if o.Preflight == nil {
			t.Errorf("an outcome of URLs sent after a preflight does not say they were checked: %+v", o)
		}
	}
	if held := rep.Ineligible(); held != 2 || rep.FailedURLs() != 0 || rep.Submitted() != 3 || fetches.Load() != 5 {
		t.Errorf("held back %d, failed %d, submitted %d, fetched %d pages; want 2 held back (no failure), 3 sent, 5 fetched",
			held, rep.FailedURLs(), rep.Submitted(), fetches.Load())
	}
}
