package bing_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// A try Bing asked to wait after, or failed for now, is a wait (Again) only when the batch is
// tried again: the last of the retries, and a 429 whose pause outlasts the run's budget, end it.
func TestATryIsAWaitOnlyWhenTriedAgain(t *testing.T) {
	tests := []struct {
		name   string
		budget time.Duration // 0: the built-in runBudget
		faults []enginetest.Fault
		want   []string // what each try came to, in order: the site's 300 URLs make one batch
	}{
		{"429 then accepted", 0, []enginetest.Fault{{Status: 429, RetryAfter: "1"}},
			[]string{channel.TryRetried, channel.TryAccepted}},
		{"given up after the retries", 0, []enginetest.Fault{{Status: 503}, {Status: 503}, {Status: 503}, {Status: 503}},
			[]string{channel.TryRetried, channel.TryRetried, channel.TryRetried, channel.TryFailed}},
		{"a 429 past the run's budget", 10 * time.Second, []enginetest.Fault{{Status: 429, RetryAfter: "600"}},
			[]string{channel.TryFailed}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota, b.BatchSize = "k", 300, 300 }, map[string]int{"k": 1000})
				if tc.budget > 0 {
					w.site.RunBudget = config.Duration(tc.budget)
				}
				w.bing.Fail(tc.faults...)
				r := w.run()
				var got []string
				for _, q := range r.Requests() {
					got = append(got, q.Outcome())
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("tries %v, want %v (%v)", got, tc.want, r)
				}
			})
		})
	}
}
