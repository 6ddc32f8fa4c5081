package bing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
)

// firstSubmits answers the first n SubmitUrlbatch requests with h, and the rest with Bing; it
// records when each request came.
type firstSubmits struct {
	bing  *enginetest.Bing
	n     int
	h     http.HandlerFunc
	times []time.Time
}

func (f *firstSubmits) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/SubmitUrlbatch") {
		f.times = append(f.times, time.Now())
		if len(f.times) <= f.n {
			f.h(w, r)
			return
		}
	}
	f.bing.ServeHTTP(w, r)
}

func answer(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

func TestA503AboutQuotaIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 300", map[string]int{"k": 1000})
		w.bing.Fail(enginetest.Fault{Status: 503, ErrorCode: 1, Message: "ERROR!!! Quota service temporarily unavailable"})
		rec := w.run()
		_, full, _ := w.store.QuotaUsed(context.Background(), "s", time.Now().UTC().Format(time.DateOnly))
		if st := rec.Channels["bing"]; st.Submitted != 300 || st.Held != 0 || full || rec.Status != model.StatusOK {
			t.Errorf("%+v, status %s, day full %v, notes %q", st, rec.Status, full, rec.Notes)
		}
	})
}

func TestA200ThatIsNotBingsIsNotDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 1000", map[string]int{"k": 1000})
		portal := answer(http.StatusOK, "text/html; charset=utf-8", "<!doctype html><title>Guest Wi-Fi</title><form>accept the terms</form>")
		w.client = enginetest.Client(&firstSubmits{bing: w.bing, n: 4, h: portal})
		rec := w.run()
		st := rec.Channels["bing"]
		msg := strings.Join(rec.Errors, "\n")
		// The first batch is tried 4 times, then fails; the two others go through.
		if st.Submitted != 200 || st.Failed != 100 || w.used() != 200 {
			t.Fatalf("%+v, used %d, errors %q", st, w.used(), msg)
		}
		if !strings.Contains(msg, "Bing answered HTTP 200 OK (an HTML page, text/html), not Bing's JSON") || !strings.Contains(msg, "gave up after 4 attempts") || strings.Contains(msg, "Wi-Fi") {
			t.Errorf("errors %q", msg)
		}
		if rec := w.run(); rec.Channels["bing"].Submitted != 100 || len(w.bing.Accepted()) != 300 {
			t.Errorf("the next run: %+v", rec.Channels["bing"])
		}
	})
}

// Bing's own error answers are quoted; any other body, which may come from anything at the
// endpoint's address, is only described.
func TestOnlyBingsOwnWordsAreQuoted(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body, want string
		status                        int
	}{
		{"an HTML page", "text/html", "<html><title>Admin console hunter2</title></html>", "Bing answered HTTP 502 Bad Gateway (an HTML page, text/html)", 502},
		{"plain text", "text/plain", "redis: password hunter2 rejected", "Bing answered HTTP 400 Bad Request (plain text, text/plain)", 400},
		{"JSON of another shape", "application/json", `{"message": "hunter2"}`, "Bing answered HTTP 400 Bad Request (JSON, application/json)", 400},
		{"Bing's error, the key masked", "application/json", `{"ErrorCode": 6, "Message": "ERROR!!! InvalidParameter for key k-secret-key-12"}`,
			"Bing answered HTTP 400, ErrorCode 6: InvalidParameter for key …", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, "apiKey: k-secret-key-12, dailyQuota: 100", map[string]int{"k-secret-key-12": 1000})
				w.client = enginetest.Client(&firstSubmits{bing: w.bing, n: 100, h: answer(tc.status, tc.contentType, tc.body)})
				rec := w.run()
				msg := strings.Join(rec.Errors, "\n")
				if !strings.Contains(msg, tc.want) || strings.Contains(msg, "hunter2") || strings.Contains(msg, "k-secret-key-12") {
					t.Errorf("errors %q, want %q in them", msg, tc.want)
				}
			})
		})
	}
}

func TestRetryAfterIsClamped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 300", map[string]int{"k": 1000})
		w.site.RunBudget = config.Duration(3 * time.Hour)
		w.bing.Fail(enginetest.Fault{Status: 429, RetryAfter: "7200"})
		start := time.Now()
		rec := w.run()
		if took := time.Since(start); rec.Channels["bing"].Submitted != 300 || took < time.Hour || took > time.Hour+time.Second {
			t.Errorf("Retry-After: 7200 under a 3h budget: %+v after %v, want all after 1h", rec.Channels["bing"], took)
		}
	})
}

func TestAWaitPastTheBudgetGivesUpAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 300", map[string]int{"k": 1000})
		w.bing.Fail(enginetest.Fault{Status: 429, RetryAfter: "10000000000"})
		start := time.Now()
		rec := w.run()
		took := time.Since(start)
		st := rec.Channels["bing"]
		// One request; its batch and the two others fail without waiting, the quota given back.
		if len(w.bing.Batches()) != 1 || st.Failed != 300 || w.used() != 0 || took > time.Second {
			t.Fatalf("%d requests, %+v, used %d, after %v", len(w.bing.Batches()), st, w.used(), took)
		}
		if msg := strings.Join(rec.Errors, "\n"); !strings.Contains(msg, "Bing asked to wait 10000000000 s") || !strings.Contains(msg, "the URLs go again next run") {
			t.Errorf("errors %q", msg)
		}
	})
}

func TestA429PausesTheNextBatchToo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 200", map[string]int{"k": 1000})
		throttled := answer(http.StatusTooManyRequests, "application/json", `{"ErrorCode": 4, "Message": "ERROR!!! ThrottleUser"}`)
		f := &firstSubmits{bing: w.bing, n: 4, h: func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Retry-After", "30")
			throttled(rw, r)
		}}
		w.client = enginetest.Client(f)
		rec := w.run()
		// The first batch gives up after 4 answers 30 s apart; the second waits 30 s more, and the
		// third goes within the quota the first gave back.
		if st := rec.Channels["bing"]; len(f.times) != 6 || f.times[4].Sub(f.times[3]) < 30*time.Second || st.Submitted != 200 || st.Failed != 100 {
			t.Errorf("requests at %v, %+v", f.times, st)
		}
	})
}

func TestARequestInFlightEndsSoonAfterTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 300", map[string]int{"k": 1000})
		w.site.RunBudget = config.Duration(5 * time.Second)
		slow := func(rw http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(30 * time.Second):
				w.bing.ServeHTTP(rw, r)
			case <-r.Context().Done():
			}
		}
		w.client = enginetest.Client(&firstSubmits{bing: w.bing, n: 100, h: slow})
		start := time.Now()
		rec := w.run()
		took := time.Since(start)
		if st := rec.Channels["bing"]; took > 5*time.Second+channel.RequestGrace || st.Left != 300 || st.Failed != 0 || w.used() != 0 || rec.Status != model.StatusBudgetExhausted {
			t.Errorf("a 5s budget and a Bing answering in 30s: the run took %v, %+v, used %d, status %s", took, st, w.used(), rec.Status)
		}
	})
}
