package indexnow_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// Any 2xx accepts: Bing's endpoint answers 203 Non-Authoritative Information to some networks.
func TestAny2xxAccepts(t *testing.T) {
	for _, status := range []int{200, 202, 203, 204} {
		synctest.Test(t, func(t *testing.T) {
			w := newWorld(t, nil)
			w.engine().AcceptStatus = status
			r := w.run(w.due(pages(5)))
			if ep := r.endpoint("https://engine.example/indexnow"); r.Submitted() != 5 || r.FailedURLs() != 0 || ep.Accepted != 1 || ep.Failed != 0 {
				t.Errorf("HTTP %d: submitted %d, failed %d, endpoint %+v, errors %q", status, r.Submitted(), r.FailedURLs(), ep, r.Errors())
			}
			if next := r.next(); len(next) != 0 {
				t.Errorf("HTTP %d: %d URLs would be sent again", status, len(next))
			}
		})
	}
}

// A try the engine asked to wait after, or failed for now, is a wait: the request counts once,
// as its last try ended it. A try is a wait only when the URLs are tried again: the last of the
// retries, and a 429 whose pause outlasts the run's budget, end the request, failed.
func TestATryIsAWaitOnlyWhenTriedAgain(t *testing.T) {
	tests := []struct {
		name   string
		budget time.Duration // 0: the built-in runBudget
		faults []enginetest.Fault
		want   endpointStats
		again  []bool // per try
	}{
		{"429 then accepted", 0, []enginetest.Fault{{Status: 429, RetryAfter: "1"}},
			endpointStats{Requests: 1, Accepted: 1, Retries: 1}, []bool{true, false}},
		{"503, 500, then accepted", 0, []enginetest.Fault{{Status: 503}, {Status: 500}},
			endpointStats{Requests: 1, Accepted: 1, Retries: 2}, []bool{true, true, false}},
		{"given up after the retries", 0, []enginetest.Fault{{Status: 503}, {Status: 503}, {Status: 503}},
			endpointStats{Requests: 1, Failed: 1, Retries: 2}, []bool{true, true, false}},
		{"a 429 past the run's budget", 10 * time.Second, []enginetest.Fault{{Status: 429, RetryAfter: "600"}},
			endpointStats{Requests: 1, Failed: 1}, []bool{false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(in *config.IndexNow) { in.MaxRetries, in.Backoff = 2, backoff(time.Second) })
				if tc.budget > 0 {
					w.site.RunBudget = config.Duration(tc.budget)
				}
				w.engine().Fail(tc.faults...)
				r := w.run(w.due(pages(3)))
				if ep := r.endpoint("https://engine.example/indexnow"); ep != tc.want {
					t.Errorf("endpoint %+v, want %+v", ep, tc.want)
				}
				var again []bool
				for _, q := range r.Requests() {
					again = append(again, q.Again)
				}
				if !slices.Equal(again, tc.again) {
					t.Errorf("tries again %v, want %v", again, tc.again)
				}
			})
		})
	}
}
