package bing_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// TestWaitsAreTold checks that a wait Bing asks for is told to the reporter as it starts — a 429,
// a 503 with Retry-After — and that a backoff after a plain 503 is not.
func TestWaitsAreTold(t *testing.T) {
	tests := []struct {
		name  string
		fault enginetest.Fault
		want  []enginetest.Wait
		took  time.Duration // at least
	}{
		{"a 429 with Retry-After", enginetest.Fault{Status: 429, RetryAfter: "30"},
			[]enginetest.Wait{{Channel: "bing", Cause: "HTTP 429 from " + endpoint, D: 30 * time.Second}}, 30 * time.Second},
		{"ThrottleUser without Retry-After", enginetest.Fault{Status: 400, ErrorCode: 4, Message: "ERROR!!! ThrottleUser"},
			[]enginetest.Wait{{Channel: "bing", Cause: "HTTP 400, ErrorCode 4 (ThrottleUser), from " + endpoint, D: time.Minute}}, time.Minute},
		{"a 503 with Retry-After", enginetest.Fault{Status: 503, RetryAfter: "20"},
			[]enginetest.Wait{{Channel: "bing", Cause: "HTTP 503 from " + endpoint, D: 20 * time.Second}}, 20 * time.Second},
		{"a 503 without Retry-After backs off, untold", enginetest.Fault{Status: 503}, nil, time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 300 }, map[string]int{"k": 1000})
				w.bing.Fail(tc.fault)
				start := time.Now()
				r := w.run()
				if took := time.Since(start); !slices.Equal(r.Waits(), tc.want) || took < tc.took || r.Submitted() != 300 {
					t.Errorf("waits told %+v after %v, %v; want %+v after %v at least, all submitted", r.Waits(), took, r, tc.want, tc.took)
				}
			})
		})
	}
}
