package indexnow_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// throttling answers every request 429 with the given Retry-After, and counts the requests.
type throttling struct {
	retryAfter string
	requests   int
}

func (th *throttling) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	th.requests++
	w.Header().Set("Retry-After", th.retryAfter)
	w.WriteHeader(http.StatusTooManyRequests)
}

func TestARequestInFlightEndsSoonAfterTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.MaxRetries, in.Backoff = 1, backoff(100*time.Millisecond) })
		w.site.RunBudget = config.Duration(5 * time.Second)
		slow := &slowEngine{h: w.engine(), latency: 30 * time.Second}
		w.client.Transport = clientOf(slow).Transport
		var r *result
		took := elapsed(func() { r = w.run(w.due(pages(10))) })
		// Cut at the budget's end and the grace: the URLs were not answered, so they stay due, and
		// the run was only stopped: no failure, no error.
		if took > 5*time.Second+channel.RequestGrace || r.Left() != 10 || r.FailedURLs() != 0 || len(r.Errors()) != 0 {
			t.Errorf("a 5s budget and an engine answering in 30s: the run took %v, left %d, failed %d, errors %q", took, r.Left(), r.FailedURLs(), r.Errors())
		}
	})
}

func TestA429PausesTheEndpointForLaterBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// No retry: the batch that got the 429 fails, and the next one still waits as asked.
		w := newWorld(t, func(in *config.IndexNow) { in.BatchSize, in.MaxConcurrent, in.MaxRetries = 1, 1, 0 })
		w.engine().Fail(enginetest.Fault{Status: 429, RetryAfter: "30"})
		slow := &slowEngine{h: w.engine()}
		w.client.Transport = clientOf(slow).Transport
		r := w.run(w.due(pages(2)))
		if len(slow.starts) != 2 || slow.starts[1].Sub(slow.starts[0]) < 30*time.Second || r.Submitted() != 1 {
			t.Errorf("requests at %v, submitted %d: want the second 30s after the 429", slow.starts, r.Submitted())
		}
	})
}

func TestAWaitPastTheBudgetGivesUpAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, retryAfter string
		throttleWait     time.Duration // 0 keeps the built-in 60s
		said             string
	}{
		{"Retry-After that overflows a duration", "10000000000", 0, "the engine asked to wait 10000000000 s"},
		{"Retry-After longer than the budget", "600", 0, "the engine asked to wait 600 s"},
		{"throttleWait longer than the budget", "", 20 * time.Second, "indexnow.throttleWait is 20s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(in *config.IndexNow) {
					in.BatchSize, in.MaxConcurrent, in.MaxRetries = 5, 1, 3
					if tc.throttleWait != 0 {
						in.ThrottleWait = config.Duration(tc.throttleWait)
					}
				})
				w.site.RunBudget = config.Duration(10 * time.Second)
				th := &throttling{retryAfter: tc.retryAfter}
				w.client.Transport = clientOf(th).Transport
				var r *result
				took := elapsed(func() { r = w.run(w.due(pages(25))) })
				// One request: its batch gives up, and so do the others, without a request. Nothing
				// delivered and all of it failed: the run failed.
				if th.requests != 1 || took >= time.Second || r.FailedURLs() != 25 || r.Submitted() != 0 {
					t.Fatalf("%d requests in %v, submitted %d, failed %d", th.requests, took, r.Submitted(), r.FailedURLs())
				}
				if msg := strings.Join(r.Errors(), "\n"); !strings.Contains(msg, tc.said) || !strings.Contains(msg, "not waited for; it is tried again next run") {
					t.Errorf("errors %q", r.Errors())
				}
			})
		})
	}
}

func TestALongWaitIsCutToAnHour(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.MaxRetries = 1 })
		w.site.RunBudget = config.Duration(3 * time.Hour)
		w.engine().Fail(enginetest.Fault{Status: 429, RetryAfter: "7200"})
		var r *result
		took := elapsed(func() { r = w.run(w.due(pages(3))) })
		if r.Submitted() != 3 || took < time.Hour || took > time.Hour+time.Second {
			t.Errorf("Retry-After: 7200 under a 3h budget: submitted %d after %v, want 3 after 1h", r.Submitted(), took)
		}
	})
}
