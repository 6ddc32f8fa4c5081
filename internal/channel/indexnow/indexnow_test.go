package indexnow_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
)

func TestPostBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "batchSize: 10")
		urls := w.publish(25)
		rec := w.run()
		subs := w.engine().Submissions()
		if rec.Status != model.StatusOK || len(subs) != 3 || !sameSet(w.engine().Accepted(), urls) {
			t.Fatalf("status %s, %d requests, accepted %d", rec.Status, len(subs), len(w.engine().Accepted()))
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
		st := rec.Channels["indexnow"]
		ep := st.Endpoints["https://engine.example/indexnow"]
		if st.Due != 25 || st.Submitted != 25 || st.Failed != 0 || ep.Requests != 3 || ep.Accepted != 3 {
			t.Errorf("stats %+v, endpoint %+v", st, ep)
		}
		if rec := w.run(); rec.Channels["indexnow"].Due != 0 || rec.Channels["indexnow"].Skipped != 25 || len(w.engine().Submissions()) != 3 {
			t.Errorf("a rerun submitted again: %+v", rec.Channels["indexnow"])
		}
	})
}

func TestEndpointsAreIndependent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "batchSize: 5, maxRetries: 1, backoff: [1s]", "https://good.example/indexnow", "https://bad.example/indexnow")
		bad := w.engines["https://bad.example/indexnow"]
		bad.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
		urls := w.publish(10)
		rec := w.run()
		good := w.engines["https://good.example/indexnow"]
		if !sameSet(good.Accepted(), urls) || rec.Channels["indexnow"].Submitted != 10 || rec.Status != model.StatusOK {
			t.Fatalf("good endpoint accepted %d, record %+v", len(good.Accepted()), rec.Channels["indexnow"])
		}
		if ep := rec.Channels["indexnow"].Endpoints["https://bad.example/indexnow"]; ep.Requests != 4 || ep.Failed != 4 {
			t.Errorf("the failing endpoint: %+v, want 2 batches × 2 attempts", ep)
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
				w := newWorld(t, "maxRetries: 3, backoff: [2s, 4s, 1s], throttleWait: 60s")
				w.engine().Fail(tc.faults...)
				w.publish(3)
				var rec *model.Record
				took := elapsed(func() { rec = w.run() })
				if rec.Channels["indexnow"].Submitted != 3 || took < tc.wait || took > tc.wait+time.Second {
					t.Errorf("submitted %d after %v, want 3 after %v", rec.Channels["indexnow"].Submitted, took, tc.wait)
				}
			})
		})
	}
}

func TestGivesUpThenRetriesNextRunFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "batchSize: 2, maxRetries: 2, backoff: [1s], maxConcurrent: 1")
		w.publish(2)
		w.engine().Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
		rec := w.run()
		st := rec.Channels["indexnow"]
		if rec.Status != model.StatusFailed || st.Failed != 2 || !strings.Contains(rec.Errors[0], "HTTP 503 Service Unavailable from https://engine.example/indexnow") ||
			!strings.Contains(rec.Errors[0], "gave up after 3 attempts") {
			t.Fatalf("status %s, %+v, errors %q", rec.Status, st, rec.Errors)
		}
		urls := w.publish(4)
		w.run()
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
		w := newWorld(t, "batchSize: 1, maxConcurrent: 1")
		w.keyFile = "not the key"
		w.publish(5)
		rec := w.run()
		if n := len(w.engine().Submissions()); n != 1 {
			t.Errorf("%d requests with a rejected key, want 1: the others would fail the same", n)
		}
		want := "key not valid: check that https://www.example.com/" + key + ".txt serves exactly the key"
		if rec.Status != model.StatusFailed || rec.Channels["indexnow"].Failed != 5 || !strings.Contains(rec.Errors[0], want) {
			t.Errorf("status %s, errors %q", rec.Status, rec.Errors)
		}
		w.keyFile = key
		if rec := w.run(); rec.Channels["indexnow"].Submitted != 5 {
			t.Errorf("after the key file is fixed: %+v", rec.Channels["indexnow"])
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
			w := newWorld(t, "batchSize: 1, maxConcurrent: 1")
			w.engine().Fail(enginetest.Fault{Status: tc.status})
			w.publish(2)
			rec := w.run()
			if st := rec.Channels["indexnow"]; st.Failed != 1 || st.Submitted != 1 || !strings.Contains(strings.Join(rec.Errors, " "), tc.want) ||
				len(w.engine().Submissions()) != 2 {
				t.Errorf("HTTP %d: %+v, errors %q: want one refused without retry, the other delivered", tc.status, st, rec.Errors)
			}
		})
	}
}

func TestGetMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "method: get")
		w.publish(3)
		rec := w.run()
		subs := w.engine().Submissions()
		if rec.Channels["indexnow"].Submitted != 3 || len(subs) != 3 || subs[0].Method != http.MethodGet {
			t.Fatalf("%+v, %d requests", rec.Channels["indexnow"], len(subs))
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
		w := newWorld(t, "batchSize: 64, maxConcurrent: 1")
		urls := w.publish(64)
		bad := urls[37]
		w.client.Transport = clientOf(refusing(w.engine(), 422, bad)).Transport
		rec := w.run()
		st := rec.Channels["indexnow"]
		if st.Submitted != 63 || st.Failed != 1 || slices.Contains(w.engine().Accepted(), bad) || len(w.engine().Accepted()) != 63 {
			t.Fatalf("%+v, accepted %d", st, len(w.engine().Accepted()))
		}
		// One request for the batch, then two per halving: 1 + 2·6.
		if ep := st.Endpoints["https://engine.example/indexnow"]; ep.Requests != 13 {
			t.Errorf("%d requests to find one bad URL in 64, want 13", ep.Requests)
		}
		if !strings.Contains(rec.Errors[0], "is not sent again until it changes") {
			t.Errorf("errors %q", rec.Errors)
		}
		if rec := w.run(); rec.Channels["indexnow"].Due != 0 {
			t.Errorf("the refused URL came back: %+v", rec.Channels["indexnow"])
		}
	})
}

func TestARefusalOfEverythingIsNotBisected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "batchSize: 64, maxConcurrent: 1")
		w.publish(64)
		w.client.Transport = clientOf(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			rw.WriteHeader(422)
		})).Transport
		rec := w.run()
		st := rec.Channels["indexnow"]
		if ep := st.Endpoints["https://engine.example/indexnow"]; st.Failed != 64 || ep.Requests != 3 {
			t.Errorf("%+v, %d requests: want the batch and its two halves, then give up", st, ep.Requests)
		}
		if rec := w.run(); rec.Channels["indexnow"].Due != 64 {
			t.Errorf("URLs refused for a cause not their own must stay due: %+v", rec.Channels["indexnow"])
		}
	})
}
