package indexnow_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

const key = "a1b2c3d4e5f6a7b8c9d0"

// world is one site, a strict engine in-process per endpoint and the site's key file: what the
// IndexNow channel needs, and nothing of a run — no state, no sitemap, no runner. A test builds
// the queue of each run itself.
type world struct {
	t       *testing.T
	site    *config.Site
	engines map[string]*enginetest.IndexNow
	keyFile string
	client  *http.Client
	hashes  map[string]int64 // each URL's hash, the same in every run, as the state keeps it
}

// newWorld configures site "s" on https://www.example.com with IndexNow on: the built-in
// settings, the key, the endpoints (one unless given) and what set changes.
func newWorld(t *testing.T, set func(*config.IndexNow), endpoints ...string) *world {
	if len(endpoints) == 0 {
		endpoints = []string{"https://engine.example/indexnow"}
	}
	w := &world{t: t, engines: map[string]*enginetest.IndexNow{}, keyFile: key, hashes: map[string]int64{}}
	mux := http.NewServeMux()
	for _, e := range endpoints {
		eng := &enginetest.IndexNow{FetchKey: func(string) (string, error) { return w.keyFile, nil }}
		w.engines[e] = eng
		mux.Handle(strings.TrimPrefix(e, "https://"), eng) // host and path
	}
	w.client = enginetest.Client(mux)
	w.site = &config.Site{ID: "s", Sitemaps: []string{"https://www.example.com/sitemap.xml"},
		BaseURL: "https://www.example.com", Settings: config.Builtin()}
	in := &w.site.IndexNow
	in.Enabled, in.Key, in.Endpoints = true, key, endpoints
	if set != nil {
		set(in)
	}
	if err := w.site.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// pages returns the site's first n pages, /p/0 … /p/{n-1}, in the order of its sitemap.
func pages(n int) []string {
	urls := make([]string, n)
	for i := range n {
		urls[i] = fmt.Sprintf("https://www.example.com/p/%d", i)
	}
	return urls
}

// due returns urls due for the first time, in order.
func (w *world) due(urls []string) []channel.Due {
	out := make([]channel.Due, len(urls))
	for i, u := range urls {
		h, ok := w.hashes[u]
		if !ok {
			h = int64(len(w.hashes) + 1)
			w.hashes[u] = h
		}
		out[i] = channel.Due{Hash: h, URL: u}
	}
	return out
}

// run delivers due through the channel within the site's runBudget, as one run does.
func (w *world) run(due []channel.Due) *result {
	w.t.Helper()
	rep, err := enginetest.Deliver(indexnow.New(w.site, w.client, "sitepush-test"), enginetest.Queue(w.site.ID, due...), w.site.RunBudget.D())
	if err != nil {
		// A run records it among its errors.
		w.t.Errorf("Deliver: %v", err)
	}
	return &result{Reporter: rep, due: due}
}

func (w *world) engine() *enginetest.IndexNow {
	for _, e := range w.engines {
		return e
	}
	return nil
}

// result is what the channel reported in one run over due: what the run's record counts comes
// from it (Submitted, FailedURLs, Held, Errors…).
type result struct {
	*enginetest.Reporter
	due []channel.Due
}

// Due is how many URLs were due.
func (r *result) Due() int { return len(r.due) }

// Left is how many due URLs the channel did not get to: they stay due.
func (r *result) Left() int { return r.Due() - r.Submitted() - r.FailedURLs() - r.Held() }

// endpointStats counts the requests to one endpoint, as a run's record does: a request once,
// however many tries it took, as its last try ended it; the tries again are retries.
type endpointStats struct{ Requests, Accepted, Failed, Retries int }

func (r *result) endpoint(url string) endpointStats {
	var st endpointStats
	for _, q := range r.Requests() {
		if q.Endpoint != url {
			continue
		}
		if q.Retry {
			st.Retries++
		} else {
			st.Requests++
		}
		switch q.Outcome() {
		case channel.TryAccepted:
			st.Accepted++
		case channel.TryFailed:
			st.Failed++
		}
	}
	return st
}

// next returns what is due in the next run when the sitemap has not changed, as the runner's rule
// makes it (docs/runs.md): a URL delivered, or rejected for good, is not; one that failed is, as a
// retry, with one more failure; one the channel never reported stays due as it was.
func (r *result) next() []channel.Due {
	reported := map[int64]channel.Outcome{}
	for _, o := range r.Outcomes() {
		for _, d := range o.URLs {
			reported[d.Hash] = o
		}
	}
	var out []channel.Due
	for _, d := range r.due {
		o, ok := reported[d.Hash]
		switch {
		case !ok:
			out = append(out, d)
		case !o.Delivered && !o.Rejected && o.Unsent == "":
			d.Retry = true
			d.Failures++
			out = append(out, d)
		}
	}
	return out
}

// backoff returns the waits of indexnow.backoff.
func backoff(waits ...time.Duration) []config.Duration {
	out := make([]config.Duration, len(waits))
	for i, d := range waits {
		out[i] = config.Duration(d)
	}
	return out
}

// clientOf returns a client that serves every request with h, in-process.
func clientOf(h http.Handler) *http.Client { return enginetest.Client(h) }

// elapsed measures fake time inside a synctest bubble.
func elapsed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
