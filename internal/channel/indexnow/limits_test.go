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
	"github.com/sitepush/sitepush/internal/model"
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
		w := newWorld(t, "maxRetries: 1, backoff: [100ms]")
		w.site.RunBudget = config.Duration(5 * time.Second)
		slow := &slowEngine{h: w.engine(), latency: 30 * time.Second}
		w.client.Transport = clientOf(slow).Transport
		w.publish(10)
		var rec *model.Record
		took := elapsed(func() { rec = w.run() })
		st := rec.Channels["indexnow"]
		// Cut at the budget's end and the grace: the URLs were not answered, so they stay due.
		if took > 5*time.Second+channel.RequestGrace || st.Left != 10 || st.Failed != 0 || rec.Status != model.StatusBudgetExhausted {
			t.Errorf("a 5s budget and an engine answering in 30s: the run took %v, %+v, status %s", took, st, rec.Status)
		}
	})
}

func TestA429PausesTheEndpointForLaterBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// No retry: the batch that got the 429 fails, and the next one still waits as asked.
		w := newWorld(t, "batchSize: 1, maxConcurrent: 1, maxRetries: 0")
		w.engine().Fail(enginetest.Fault{Status: 429, RetryAfter: "30"})
		slow := &slowEngine{h: w.engine()}
		w.client.Transport = clientOf(slow).Transport
		w.publish(2)
		rec := w.run()
		if len(slow.starts) != 2 || slow.starts[1].Sub(slow.starts[0]) < 30*time.Second || rec.Channels["indexnow"].Submitted != 1 {
			t.Errorf("requests at %v, %+v: want the second 30s after the 429", slow.starts, rec.Channels["indexnow"])
		}
	})
}

func TestAWaitPastTheBudgetGivesUpAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, retryAfter, yaml, said string
	}{
		{"Retry-After that overflows a duration", "10000000000", "", "the engine asked to wait 10000000000 s"},
		{"Retry-After longer than the budget", "600", "", "the engine asked to wait 600 s"},
		{"throttleWait longer than the budget", "", ", throttleWait: 20s", "indexnow.throttleWait is 20s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, "batchSize: 5, maxConcurrent: 1, maxRetries: 3"+tc.yaml)
				w.site.RunBudget = config.Duration(10 * time.Second)
				th := &throttling{retryAfter: tc.retryAfter}
				w.client.Transport = clientOf(th).Transport
				w.publish(25)
				var rec *model.Record
				took := elapsed(func() { rec = w.run() })
				st := rec.Channels["indexnow"]
				// One request: its batch gives up, and so do the others, without a request.
				if th.requests != 1 || took >= time.Second || st.Failed != 25 || rec.Status != model.StatusFailed {
					t.Fatalf("%d requests in %v, %+v, status %s", th.requests, took, st, rec.Status)
				}
				if msg := strings.Join(rec.Errors, "\n"); !strings.Contains(msg, tc.said) || !strings.Contains(msg, "the URLs go again next run") {
					t.Errorf("errors %q", rec.Errors)
				}
			})
		})
	}
}

func TestALongWaitIsCutToAnHour(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "maxRetries: 1")
		w.site.RunBudget = config.Duration(3 * time.Hour)
		w.engine().Fail(enginetest.Fault{Status: 429, RetryAfter: "7200"})
		w.publish(3)
		var rec *model.Record
		took := elapsed(func() { rec = w.run() })
		if rec.Channels["indexnow"].Submitted != 3 || took < time.Hour || took > time.Hour+time.Second {
			t.Errorf("Retry-After: 7200 under a 3h budget: submitted %d after %v, want 3 after 1h", rec.Channels["indexnow"].Submitted, took)
		}
	})
}
