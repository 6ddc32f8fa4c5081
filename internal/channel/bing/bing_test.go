package bing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

const endpoint = "https://bing.example/webmaster/api.svc/json"

// world is site "s" with the Bing channel on, Bing in-process and a real store, which counts the
// day's quota across runs as it does across processes; the due URLs are a queue in memory.
type world struct {
	t      *testing.T
	site   *config.Site
	bing   *enginetest.Bing
	store  *store.Store
	client *http.Client
	due    []channel.Due // what the next run queues, in sitemap order
	dated  []string      // newest first
	all    []string      // in sitemap order
}

// newWorld configures site "s" with Bing's settings as set makes them; its sitemap lists 100
// undated URLs, then 100 dated ones, then 100 more undated ones, all due, as on a first run.
func newWorld(t *testing.T, set func(b *config.Bing), keys map[string]int) *world {
	site := &config.Site{ID: "s", BaseURL: "https://www.example.com", Sitemaps: []string{"https://www.example.com/sitemap.xml"},
		Settings: config.Builtin()}
	site.Bing.Enabled, site.Bing.Endpoint = true, endpoint
	set(&site.Bing)
	if err := site.Validate(); err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, site: site, bing: &enginetest.Bing{Keys: keys}, store: storetest.Open(t)}
	w.client = enginetest.Client(w.bing)
	for i := range 300 {
		d := channel.Due{Hash: int64(i + 1), URL: fmt.Sprintf("https://www.example.com/p/%d", i)}
		if i >= 100 && i < 200 {
			d.Lastmod = time.Date(2026, time.Month(1+i%10), 1+i%27, i%24, 0, 0, 0, time.UTC)
		}
		w.due = append(w.due, d)
		w.all = append(w.all, d.URL)
	}
	dated := slices.Clone(w.due[100:200])
	slices.SortStableFunc(dated, func(a, b channel.Due) int { return b.Lastmod.Compare(a.Lastmod) })
	for _, d := range dated {
		w.dated = append(w.dated, d.URL)
	}
	return w
}

// result is what one run of the channel reported.
type result struct {
	*enginetest.Reporter
	due int   // the length of the queue it was given
	err error // what Deliver returned
}

// errs are the errors as a run's record words them: those the channel reported, then the error
// Deliver returned.
func (r result) errs() []string {
	if r.err != nil {
		return append(r.Errors(), "bing: "+r.err.Error())
	}
	return r.Errors()
}

// left counts the due URLs neither delivered, failed nor held back: the run ended before them.
func (r result) left() int { return r.due - r.Submitted() - r.FailedURLs() - r.Held() }

// clean reports whether nothing failed and nothing was left: no error, no failed URL, every due
// URL delivered or held back by the quota.
func (r result) clean() bool { return len(r.errs()) == 0 && r.FailedURLs() == 0 && r.left() == 0 }

// String sums the run up for a failure's message.
func (r result) String() string {
	return fmt.Sprintf("due %d, submitted %d, failed %d, held %d, left %d", r.due, r.Submitted(), r.FailedURLs(), r.Held(), r.left())
}

// run delivers what is due through a new channel, as a run starting now does within the site's
// runBudget. What it did not deliver stays due for the next run, as the runner keeps it: a
// failed URL as a retry, a rejected one not until it changes.
func (w *world) run() result {
	w.t.Helper()
	ch := bing.New(w.site, w.client, "sitepush-test", w.store, time.Now())
	rep, err := enginetest.Deliver(ch, enginetest.Queue("s", w.due...), w.site.RunBudget.D())
	r := result{Reporter: rep, due: len(w.due), err: err}
	done := map[int64]channel.Outcome{}
	for _, o := range rep.Outcomes() {
		for _, d := range o.URLs {
			done[d.Hash] = o
		}
	}
	var next []channel.Due
	for _, d := range w.due {
		o, reported := done[d.Hash]
		switch {
		case !reported:
			next = append(next, d)
		case !o.Delivered && !o.Rejected:
			d.Retry, d.Failures = true, d.Failures+1
			next = append(next, d)
		}
	}
	w.due = next
	return r
}

// used is the quota the store counts as used today.
func (w *world) used() int {
	d, _ := w.store.QuotaDay(context.Background(), "s", time.Now().UTC().Format(time.DateOnly))
	return d.Used
}

func TestQuotaNewestFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 120 }, map[string]int{"k": 150})
		r := w.run()
		sent := w.bing.Accepted()
		if len(sent) != 120 || r.Submitted() != 120 || r.Held() != 180 || r.FailedURLs() != 0 || !r.clean() || w.used() != 120 {
			t.Fatalf("sent %d, %v, errors %q, used %d", len(sent), r, r.errs(), w.used())
		}
		if !slices.Equal(sent[:100], w.dated) {
			t.Errorf("the first 100 sent are not the dated URLs newest first: %v", sent[:3])
		}
		for _, b := range w.bing.Batches() {
			if len(b.URLs) > 100 || b.SiteURL != "https://www.example.com" {
				t.Errorf("a batch of %d URLs for siteUrl %q", len(b.URLs), b.SiteURL)
			}
		}
		if notes := r.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "the quota of today is spent (your bing.dailyQuota of 120) until 00:00 UTC") {
			t.Errorf("notes %q", notes)
		}
		// The same UTC day, nothing more goes: the quota is spent.
		before := len(w.bing.Batches())
		if r := w.run(); len(w.bing.Batches()) != before || r.Held() != 180 {
			t.Errorf("the second run sent %d more batches, %v", len(w.bing.Batches())-before, r)
		}
	})
}

func TestRandomIsNotSitemapOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota, b.Priority = "k", 30, "random" }, map[string]int{"k": 1000})
		w.run()
		sent := w.bing.Accepted()
		if len(sent) != 30 || slices.Equal(sent, w.all[:30]) {
			t.Errorf("random picked %v", sent)
		}
		for _, u := range sent {
			if !slices.Contains(w.all, u) {
				t.Errorf("sent %s, which is not due", u)
			}
		}
	})
}

func TestBingQuotaLowerThanConfigured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 100 }, map[string]int{"k": 30})
		r := w.run()
		refused := slices.ContainsFunc(w.bing.Batches(), func(b enginetest.BingBatch) bool { return b.Status != http.StatusOK })
		if len(w.bing.Accepted()) != 30 || refused || r.Held() != 270 {
			t.Errorf("accepted %d, a refusal %v, %v", len(w.bing.Accepted()), refused, r)
		}
	})
}

func TestBingRefusesForQuota(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota, b.BatchSize = "k", 300, 50 }, map[string]int{"k": 1000})
		// Bing says 1,000 are left, then refuses the second batch for quota all the same.
		w.client = enginetest.Client(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/SubmitUrlbatch") && len(w.bing.Batches()) == 1 {
				w.bing.Fail(enginetest.Fault{Status: 400, ErrorCode: 2, Message: "ERROR!!! You have exceeded your daily url submission quota : 1000"})
			}
			w.bing.ServeHTTP(rw, r)
		}))
		r := w.run()
		batches := w.bing.Batches()
		if len(batches) != 2 || len(w.bing.Accepted()) != 50 || r.Held() != 250 || w.used() != 50 {
			t.Fatalf("%d requests, %d accepted, %v, used %d", len(batches), len(w.bing.Accepted()), r, w.used())
		}
		if !r.clean() || !strings.Contains(strings.Join(r.Notes(), " "), "exceeded your daily url submission quota") {
			t.Errorf("%v, errors %q, notes %q", r, r.errs(), r.Notes())
		}
		if w.run(); len(w.bing.Batches()) != 2 {
			t.Error("after Bing refused for quota, a later run the same day sent again")
		}
	})
}

func TestInvalidKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey = "wrong-key-12345" }, map[string]int{"k": 100})
		r := w.run()
		msg := strings.Join(r.errs(), " ")
		if r.FailedURLs() != 0 || len(w.bing.Batches()) != 0 || !strings.Contains(msg, "bing: Bing answered HTTP 401, ErrorCode 3: InvalidApiKey: the API key was rejected: check bing.apiKey") {
			t.Errorf("%v, %d batches, errors %q", r, len(w.bing.Batches()), r.errs())
		}
		if strings.Contains(msg, "wrong-key-12345") {
			t.Error("the API key was printed")
		}
	})
}

func TestInvalidURLs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota, b.BatchSize, b.Priority = "k", 1000, 100, "random" }, map[string]int{"k": 1000})
		named := "https://www.example.com/p/7"
		unnamed := "https://www.example.com/p/8"
		inner := w.bing
		w.client = enginetest.Client(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			var body struct{ URLList []string }
			if r.Body != nil {
				json.NewDecoder(r.Body).Decode(&body)
			}
			switch {
			case slices.Contains(body.URLList, named):
				inner.Fail(enginetest.Fault{Status: 400, ErrorCode: 7, Message: "ERROR!!! InvalidUrl " + named})
			case slices.Contains(body.URLList, unnamed):
				inner.Fail(enginetest.Fault{Status: 400, ErrorCode: 7, Message: "ERROR!!! InvalidUrl"})
			}
			b, _ := json.Marshal(body)
			r2, _ := http.NewRequest(r.Method, r.URL.String(), strings.NewReader(string(b)))
			r2.Header = r.Header
			inner.ServeHTTP(rw, r2)
		}))
		r := w.run()
		if r.Submitted() != 298 || r.FailedURLs() != 2 || slices.Contains(inner.Accepted(), named) || slices.Contains(inner.Accepted(), unnamed) {
			t.Fatalf("%v, accepted %d", r, len(inner.Accepted()))
		}
		// Both are rejected for good, so that they are not due again until they change.
		var rejected []string
		for _, o := range r.Outcomes() {
			for _, d := range o.URLs {
				if o.Rejected {
					rejected = append(rejected, d.URL)
				}
			}
		}
		if slices.Sort(rejected); !slices.Equal(rejected, []string{named, unnamed}) {
			t.Errorf("rejected %q, want the two invalid URLs", rejected)
		}
		// Their error says what the record does with them, in IndexNow's words: "skipped" is the
		// record's word for a URL already delivered.
		for _, o := range r.Outcomes() {
			if o.Rejected && (!strings.HasSuffix(o.Err, ": the URL is not sent again until it changes") || strings.Contains(o.Err, "skipped")) {
				t.Errorf("a rejected URL's error %q; want it to end \"the URL is not sent again until it changes\"", o.Err)
			}
		}
	})
}

func TestRetriesAndRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota, b.BatchSize = "k", 300, 100 }, map[string]int{"k": 1000})
		w.bing.Fail(enginetest.Fault{Status: 429, RetryAfter: "5"},
			enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
		start := time.Now()
		r := w.run()
		// First batch: 429 (5 s), then 503 ×3 (2 s, 4 s) and gives up; the two others go through.
		if r.Submitted() != 200 || r.FailedURLs() != 100 || w.used() != 200 || time.Since(start) < 11*time.Second {
			t.Errorf("%v, used %d after %v", r, w.used(), time.Since(start))
		}
		if errs := r.errs(); len(errs) == 0 || !strings.Contains(errs[0], "HTTP 503") || !strings.Contains(errs[0], "gave up after 4 attempts") {
			t.Errorf("errors %q", errs)
		}
	})
}
