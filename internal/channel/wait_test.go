package channel

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestRequestContext(t *testing.T) {
	const timeout, grace = 30 * time.Second, 2 * time.Second
	tests := []struct {
		name   string
		budget time.Duration // 0: the run has no deadline
		want   time.Duration // the request's deadline, from now
	}{
		{"no budget: the request's own timeout", 0, timeout},
		{"the budget ends first: its end and the grace", 5 * time.Second, 5*time.Second + grace},
		{"the budget ends later: the request's own timeout", time.Minute, timeout},
		{"the budget is spent: the grace only", -time.Second, grace - time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				run, stop := context.WithCancel(context.Background())
				if tc.budget != 0 {
					run, stop = context.WithDeadline(context.Background(), time.Now().Add(tc.budget))
				}
				defer stop()
				ctx, cancel := RequestContext(run, timeout, grace)
				defer cancel()
				if d, ok := ctx.Deadline(); !ok || time.Until(d) != tc.want {
					t.Errorf("deadline in %v (set %v), want in %v", time.Until(d), ok, tc.want)
				}
			})
		})
	}
}

func TestRequestContextOutlivesTheRunBriefly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		run, stop := context.WithCancel(context.Background())
		ctx, cancel := RequestContext(run, 30*time.Second, 2*time.Second)
		defer cancel()
		stop() // a signal: the request in flight is let finish, within its timeout
		time.Sleep(29 * time.Second)
		if ctx.Err() != nil {
			t.Fatalf("the request ended with the run: %v", ctx.Err())
		}
		time.Sleep(time.Second)
		synctest.Wait() // the deadline's timer has fired: let it end the context
		if ctx.Err() == nil {
			t.Error("the request outlived its timeout")
		}
	})
}
