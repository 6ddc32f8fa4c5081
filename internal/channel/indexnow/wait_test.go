package indexnow_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// TestWaitsAreTold checks that a wait an engine asks for is told to the reporter as it starts,
// once per pause however many workers wait it out, and never when it is not waited for.
func TestWaitsAreTold(t *testing.T) {
	const ep = "https://engine.example/indexnow"
	tests := []struct {
		name   string
		budget time.Duration // 0: the built-in runBudget
		faults []enginetest.Fault
		want   []enginetest.Wait
		took   time.Duration // at least
	}{
		{"a 429 with Retry-After, waited by every worker", 0, []enginetest.Fault{{Status: 429, RetryAfter: "30"}},
			[]enginetest.Wait{{Channel: "indexnow", Cause: "HTTP 429 from " + ep, D: 30 * time.Second}}, 30 * time.Second},
		{"a 429 without Retry-After waits throttleWait", 0, []enginetest.Fault{{Status: 429}},
			[]enginetest.Wait{{Channel: "indexnow", Cause: "HTTP 429 from " + ep, D: 60 * time.Second}}, 60 * time.Second},
		{"a 503 with Retry-After waits as asked", 0, []enginetest.Fault{{Status: 503, RetryAfter: "20"}},
			[]enginetest.Wait{{Channel: "indexnow", Cause: "HTTP 503 from " + ep, D: 20 * time.Second}}, 20 * time.Second},
		{"a 503 without Retry-After backs off, untold", 0, []enginetest.Fault{{Status: 503}}, nil, time.Second},
		{"a 429 past the budget is not waited, nor told", 10 * time.Second, []enginetest.Fault{{Status: 429, RetryAfter: "600"}}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(in *config.IndexNow) {
					in.Method, in.MaxConcurrent, in.MaxRetries = "get", 3, 1
					in.Backoff, in.ThrottleWait = backoff(time.Second), config.Duration(60*time.Second)
				})
				if tc.budget > 0 {
					w.site.RunBudget = config.Duration(tc.budget)
				}
				w.engine().Fail(tc.faults...)
				var r *result
				took := elapsed(func() { r = w.run(w.due(pages(6))) })
				if got := r.Waits(); !slices.Equal(got, tc.want) || took < tc.took {
					t.Errorf("waits told %+v after %v, want %+v after %v at least", got, took, tc.want, tc.took)
				}
			})
		})
	}
}
