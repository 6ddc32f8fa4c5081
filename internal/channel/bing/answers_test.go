package bing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
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
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 300 }, map[string]int{"k": 1000})
		w.bing.Fail(enginetest.Fault{Status: 503, ErrorCode: 1, Message: "ERROR!!! Quota service temporarily unavailable"})
		r := w.run()
		d, _ := w.store.QuotaDay(context.Background(), "s", time.Now().UTC().Format(time.DateOnly))
		if r.Submitted() != 300 || r.Held() != 0 || d.Full || !r.clean() {
			t.Errorf("%v, errors %q, day full %v, notes %q", r, r.errs(), d.Full, r.Notes())
		}
	})
}

func TestA200ThatIsNotBingsIsNotDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 1000 }, map[string]int{"k": 1000})
		portal := answer(http.StatusOK, "text/html; charset=utf-8", "<!doctype html><title>Guest Wi-Fi</title><form>accept the terms</form>")
		w.client = enginetest.Client(&firstSubmits{bing: w.bing, n: 4, h: portal})
		r := w.run()
		msg := strings.Join(r.errs(), "\n")
		// The first batch is tried 4 times, then fails; the two others go through.
		if r.Submitted() != 200 || r.FailedURLs() != 100 || w.used() != 200 {
			t.Fatalf("%v, used %d, errors %q", r, w.used(), msg)
		}
		if !strings.Contains(msg, "Bing answered HTTP 200 OK (an HTML page, text/html), not Bing's JSON") || !strings.Contains(msg, "gave up after 4 attempts") || strings.Contains(msg, "Wi-Fi") {
			t.Errorf("errors %q", msg)
		}
		if r := w.run(); r.Submitted() != 100 || len(w.bing.Accepted()) != 300 {
			t.Errorf("the next run: %v", r)
		}
	})
}

// Bing's own error answers are quoted, on one line and only their printable characters, cut on a
// character's edge (channel.Printable, human.Clip): they reach terminals and CI logs. Any other
// body, which may come from anything at the endpoint's address, is only described.
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
		{"Bing's error, hostile", "application/json", `{"ErrorCode":2,"Message":"\u001b[2J\u001b[31mboom \u202e x\ny"}`,
			"Bing answered HTTP 400, ErrorCode 2: [2J[31mboom x y", 400},
		{"Bing's error, long", "application/json", `{"ErrorCode":6,"Message":"` + strings.Repeat("a", 197) + `ééé"}`,
			"Bing answered HTTP 400, ErrorCode 6: " + strings.Repeat("a", 197) + "…", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k-secret-key-12", 100 }, map[string]int{"k-secret-key-12": 1000})
				w.client = enginetest.Client(&firstSubmits{bing: w.bing, n: 100, h: answer(tc.status, tc.contentType, tc.body)})
				errs := w.run().errs()
				msg := strings.Join(errs, "\n")
				if !strings.Contains(msg, tc.want) || strings.Contains(msg, "hunter2") || strings.Contains(msg, "k-secret-key-12") {
					t.Errorf("errors %q, want %q in them", msg, tc.want)
				}
				for _, e := range errs {
					if strings.ContainsAny(e, "\x1b\u202e\n") || !utf8.ValidString(e) {
						t.Errorf("error %q is not one line of printable text", e)
					}
				}
			})
		})
	}
}

func TestRetryAfterIsClamped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 300 }, map[string]int{"k": 1000})
		w.site.RunBudget = config.Duration(3 * time.Hour)
		w.bing.Fail(enginetest.Fault{Status: 429, RetryAfter: "7200"})
		start := time.Now()
		r := w.run()
		if took := time.Since(start); r.Submitted() != 300 || took < time.Hour || took > time.Hour+time.Second {
			t.Errorf("Retry-After: 7200 under a 3h budget: %v after %v, want all after 1h", r, took)
		}
	})
}

func TestAWaitPastTheBudgetGivesUpAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 300 }, map[string]int{"k": 1000})
		w.bing.Fail(enginetest.Fault{Status: 429, RetryAfter: "10000000000"})
		start := time.Now()
		r := w.run()
		took := time.Since(start)
		// One request; its batch and the two others fail without waiting, the quota given back.
		if len(w.bing.Batches()) != 1 || r.FailedURLs() != 300 || w.used() != 0 || took > time.Second {
			t.Fatalf("%d requests, %v, used %d, after %v", len(w.bing.Batches()), r, w.used(), took)
		}
		if msg := strings.Join(r.errs(), "\n"); !strings.Contains(msg, "Bing asked to wait 10000000000 s") || !strings.Contains(msg, "not waited for; it is tried again next run") {
			t.Errorf("errors %q", msg)
		}
	})
}

func TestA429PausesTheNextBatchToo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 200 }, map[string]int{"k": 1000})
		throttled := answer(http.StatusTooManyRequests, "application/json", `{"ErrorCode": 4, "Message": "ERROR!!! ThrottleUser"}`)
		f := &firstSubmits{bing: w.bing, n: 4, h: func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Retry-After", "30")
			throttled(rw, r)
		}}
		w.client = enginetest.Client(f)
		r := w.run()
		// The first batch gives up after 4 answers 30 s apart; the second waits 30 s more, and the
		// third goes within the quota the first gave back.
		if len(f.times) != 6 || f.times[4].Sub(f.times[3]) < 30*time.Second || r.Submitted() != 200 || r.FailedURLs() != 100 {
			t.Errorf("requests at %v, %v", f.times, r)
		}
	})
}

func TestARequestInFlightEndsSoonAfterTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 300 }, map[string]int{"k": 1000})
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
		r := w.run()
		took := time.Since(start)
		// Nothing failed: the URLs are left for the next run, and no error says otherwise.
		if took > 5*time.Second+channel.RequestGrace || r.left() != 300 || r.FailedURLs() != 0 || w.used() != 0 || len(r.errs()) != 0 {
			t.Errorf("a 5s budget and a Bing answering in 30s: the run took %v, %v, used %d, errors %q", took, r, w.used(), r.errs())
		}
	})
}
