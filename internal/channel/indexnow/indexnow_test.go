package indexnow_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

func TestPostBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.BatchSize = 10 })
		urls := pages(25)
		r := w.run(w.due(urls))
		subs := w.engine().Submissions()
		if len(r.Errors()) != 0 || len(subs) != 3 || !sameSet(w.engine().Accepted(), urls) {
			t.Fatalf("errors %q, %d requests, accepted %d", r.Errors(), len(subs), len(w.engine().Accepted()))
		}
		// Batches go out at once (maxConcurrent), so the engine sees them in any order.
		var sizes []int
		for _, sub := range subs {
			var body struct {
				Host, Key, KeyLocation string
				URLList                []string
			}
			json.Unmarshal([]byte(sub.Body), &body)
			if body.Host != "www.example.com" || body.Key != key || body.KeyLocation != "https://www.example.com/"+key+".txt" {
				t.Errorf("body = %+v", body)
			}
			sizes = append(sizes, len(body.URLList))
		}
		if slices.Sort(sizes); !slices.Equal(sizes, []int{5, 10, 10}) {
			t.Errorf("batch sizes %v, want 10, 10 and 5", sizes)
		}
		ep := r.endpoint("https://engine.example/indexnow")
		if r.Due() != 25 || r.Submitted() != 25 || r.FailedURLs() != 0 || r.Left() != 0 || ep.Requests != 3 || ep.Accepted != 3 {
			t.Errorf("due %d, submitted %d, failed %d, left %d, endpoint %+v", r.Due(), r.Submitted(), r.FailedURLs(), r.Left(), ep)
		}
		// Every URL is reported delivered, so that a rerun does not submit it again.
		if next := r.next(); len(next) != 0 || !sameSet(r.URLs(true), urls) {
			t.Errorf("%d URLs would be due again: delivered %q", len(next), r.URLs(true))
		}
	})
}

func TestEndpointsAreIndependent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.BatchSize, in.MaxRetries, in.Backoff = 5, 1, backoff(time.Second) },
			"https://good.example/indexnow", "https://bad.example/indexnow")
		bad := w.engines["https://bad.example/indexnow"]
		bad.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
		urls := pages(10)
		r := w.run(w.due(urls))
		good := w.engines["https://good.example/indexnow"]
		if !sameSet(good.Accepted(), urls) || r.Submitted() != 10 || r.FailedURLs() != 0 || len(r.Errors()) != 0 {
			t.Fatalf("good endpoint accepted %d, submitted %d, failed %d, errors %q", len(good.Accepted()), r.Submitted(), r.FailedURLs(), r.Errors())
		}
		if ep := r.endpoint("https://bad.example/indexnow"); ep.Requests != 2 || ep.Failed != 2 || ep.Retries != 2 {
			t.Errorf("the failing endpoint: %+v, want 2 batches failed after 2 attempts each", ep)
		}
	})
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name   string
		faults []enginetest.Fault
		wait   time.Duration
	}{
		{"429 with Retry-After seconds", []enginetest.Fault{{Status: 429, RetryAfter: "30"}}, 30 * time.Second},
		{"429 without Retry-After waits throttleWait", []enginetest.Fault{{Status: 429}}, 60 * time.Second},
		{"5xx backs off", []enginetest.Fault{{Status: 500}, {Status: 503}, {Status: 502}}, 7 * time.Second},
		{"429 with Retry-After 0 retries at once", []enginetest.Fault{{Status: 429, RetryAfter: "0"}}, 0},
		{"429 with Retry-After as a date", []enginetest.Fault{{Status: 429, RetryAfter: "Sat, 01 Jan 2000 00:00:45 GMT"}}, 45 * time.Second},
		{"429 then 503: backoff[1] after the first retry", []enginetest.Fault{{Status: 429, RetryAfter: "1"}, {Status: 503}}, 5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(in *config.IndexNow) {
					in.MaxRetries, in.Backoff = 3, backoff(2*time.Second, 4*time.Second, time.Second)
					in.ThrottleWait = config.Duration(60 * time.Second)
				})
				w.engine().Fail(tc.faults...)
				var r *result
				took := elapsed(func() { r = w.run(w.due(pages(3))) })
				if r.Submitted() != 3 || took < tc.wait || took > tc.wait+time.Second {
					t.Errorf("submitted %d after %v, want 3 after %v", r.Submitted(), took, tc.wait)
				}
			})
		})
	}
}

func TestGivesUpThenRetriesNextRunFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) {
			in.BatchSize, in.MaxRetries, in.Backoff, in.MaxConcurrent = 2, 2, backoff(time.Second), 1
		})
		urls := pages(4)
		w.engine().Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
		r := w.run(w.due(urls[:2]))
		// Nothing delivered and all of it failed: the run failed.
		errs := r.Errors()
		if r.Submitted() != 0 || r.FailedURLs() != 2 || len(errs) == 0 ||
			!strings.Contains(errs[0], "HTTP 503 Service Unavailable from https://engine.example/indexnow") || !strings.Contains(errs[0], "gave up after 3 attempts") {
			t.Fatalf("submitted %d, failed %d, errors %q", r.Submitted(), r.FailedURLs(), errs)
		}
		// The next run: the two that failed, then two new pages.
		w.run(append(r.next(), w.due(urls[2:])...))
		subs := w.engine().Submissions()
		// The two that failed go first, in a batch of their own.
		if got := subs[len(subs)-2].URLs; !slices.Equal(got, urls[:2]) {
			t.Errorf("first batch of the next run = %v, want the failed URLs", got)
		}
		if !slices.Equal(subs[len(subs)-1].URLs, urls[2:]) {
			t.Errorf("then the new ones: %v", subs[len(subs)-1].URLs)
		}
	})
}

func TestWrongKeyFileStopsTheEndpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.BatchSize, in.MaxConcurrent = 1, 1 })
		w.keyFile = "not the key"
		r := w.run(w.due(pages(5)))
		if n := len(w.engine().Submissions()); n != 1 {
			t.Errorf("%d requests with a rejected key, want 1: the others would fail the same", n)
		}
		want := "key not valid: check that https://www.example.com/" + key + ".txt serves exactly the key"
		// Nothing delivered and all of it failed: the run failed.
		if errs := r.Errors(); r.Submitted() != 0 || r.FailedURLs() != 5 || len(errs) == 0 || !strings.Contains(errs[0], want) {
			t.Errorf("submitted %d, failed %d, errors %q", r.Submitted(), r.FailedURLs(), errs)
		}
		w.keyFile = key
		if r := w.run(r.next()); r.Due() != 5 || r.Submitted() != 5 {
			t.Errorf("after the key file is fixed: due %d, submitted %d, errors %q", r.Due(), r.Submitted(), r.Errors())
		}
	})
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
	}{
		{422, "URLs do not belong to host www.example.com"},
		{400, "refused the request as malformed"},
	} {
		synctest.Test(t, func(t *testing.T) {
			w := newWorld(t, func(in *config.IndexNow) { in.BatchSize, in.MaxConcurrent = 1, 1 })
			w.engine().Fail(enginetest.Fault{Status: tc.status})
			r := w.run(w.due(pages(2)))
			if r.FailedURLs() != 1 || r.Submitted() != 1 || !strings.Contains(strings.Join(r.Errors(), " "), tc.want) ||
				len(w.engine().Submissions()) != 2 {
				t.Errorf("HTTP %d: submitted %d, failed %d, errors %q: want one refused without retry, the other delivered",
					tc.status, r.Submitted(), r.FailedURLs(), r.Errors())
			}
			// A URL refused on its own is at fault: it is not sent again until it changes.
			if next := r.next(); len(next) != 0 {
				t.Errorf("HTTP %d: the refused URL is due again next run: %v", tc.status, next)
			}
		})
	}
}

func TestGetMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.Method = "get" })
		r := w.run(w.due(pages(3)))
		subs := w.engine().Submissions()
		if r.Submitted() != 3 || len(subs) != 3 || subs[0].Method != http.MethodGet {
			t.Fatalf("submitted %d, %d requests", r.Submitted(), len(subs))
		}
		want := "url=https%3A%2F%2Fwww.example.com%2Fp%2F0&key=" + key + "&keyLocation=https%3A%2F%2Fwww.example.com%2F" + key + ".txt"
		if !slices.ContainsFunc(subs, func(s enginetest.Submission) bool { return s.RawQuery == want }) {
			t.Errorf("queries %q, want %q", subs[0].RawQuery, want)
		}
	})
}

// sameSet reports whether a and b hold the same strings, each once: concurrent requests may
// arrive in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// refusing wraps an engine: any request that carries one of bad is refused with status.
func refusing(eng http.Handler, status int, bad ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		for _, b := range bad {
			if strings.Contains(string(body), `"`+b+`"`) {
				w.WriteHeader(status)
				io.WriteString(w, "URL not allowed")
				return
			}
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		eng.ServeHTTP(w, r)
	})
}

func TestOneBadURLDoesNotFailItsBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.BatchSize, in.MaxConcurrent = 64, 1 })
		urls := pages(64)
		bad := urls[37]
		w.client.Transport = clientOf(refusing(w.engine(), 422, bad)).Transport
		r := w.run(w.due(urls))
		if r.Submitted() != 63 || r.FailedURLs() != 1 || slices.Contains(w.engine().Accepted(), bad) || len(w.engine().Accepted()) != 63 {
			t.Fatalf("submitted %d, failed %d, accepted %d", r.Submitted(), r.FailedURLs(), len(w.engine().Accepted()))
		}
		// One request for the batch, then two per halving: 1 + 2·6.
		if ep := r.endpoint("https://engine.example/indexnow"); ep.Requests != 13 {
			t.Errorf("%d requests to find one bad URL in 64, want 13", ep.Requests)
		}
		if errs := r.Errors(); len(errs) == 0 || !strings.Contains(errs[0], "is not sent again until it changes") {
			t.Errorf("errors %q", errs)
		}
		// Rejected for good: it is not due again until it changes.
		if next := r.next(); len(next) != 0 {
			t.Errorf("the refused URL came back: %+v", next)
		}
	})
}

func TestARefusalOfEverythingIsNotBisected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.BatchSize, in.MaxConcurrent = 64, 1 })
		w.client.Transport = clientOf(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			rw.WriteHeader(422)
		})).Transport
		r := w.run(w.due(pages(64)))
		if ep := r.endpoint("https://engine.example/indexnow"); r.FailedURLs() != 64 || ep.Requests != 3 {
			t.Errorf("failed %d, %d requests: want the batch and its two halves, then give up", r.FailedURLs(), ep.Requests)
		}
		if next := r.next(); len(next) != 64 {
			t.Errorf("URLs refused for a cause not their own must stay due: %d due next run", len(next))
		}
	})
}

// TestSelectionTakesRemovalsAsConfigured: IndexNow declares that it takes removal notices while
// indexnow.removed is on (the default), and not once it is off: the run asks the channel, never
// the configuration, whether to announce the URLs gone from a site.
func TestSelectionTakesRemovalsAsConfigured(t *testing.T) {
	for _, on := range []bool{true, false} {
		w := newWorld(t, func(in *config.IndexNow) {
			if !on {
				in.Removed = false
			}
		})
		sel := indexnow.New(w.site, w.client, "sitepush-test").Selection(context.Background())
		if sel.Removals != on || sel.OnlyNew || sel.Newest != 0 {
			t.Errorf("indexnow.removed %v: selection %+v, want removal notices %v and every due URL", on, sel, on)
		}
	}
}

// TestGivesUpAfterOneAttempt: with no retry, the failure says it gave up after 1 attempt.
func TestGivesUpAfterOneAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.MaxRetries = 0 })
		w.engine().Fail(enginetest.Fault{Status: 503})
		r := w.run(w.due(pages(1)))
		if errs := r.Errors(); len(errs) == 0 || !strings.Contains(errs[0], "(gave up after 1 attempt)") {
			t.Errorf("errors %q; want the one attempt said so", errs)
		}
	})
}
