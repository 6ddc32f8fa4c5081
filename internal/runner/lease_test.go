package runner_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// overlapChannel records how many of its deliveries ever ran at once.
type overlapChannel struct {
	now, peak atomic.Int32
}

func (c *overlapChannel) Name() string { return "indexnow" }

func (c *overlapChannel) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	n := c.now.Add(1)
	defer c.now.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(50 * time.Millisecond)
	due, err := q.Slice(ctx, 0, q.Len())
	if err != nil {
		return err
	}
	return rep.Finished(channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true})
}

func TestOneRunnerNeverRunsASiteTwiceAtOnce(t *testing.T) {
	r := runner.New(storetest.Open(t))
	r.LeasePoll = 5 * time.Millisecond
	s := newSite(t, "")
	s.publish("/a")
	ch := &overlapChannel{}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := r.Run(context.Background(), s.site, runner.Options{Channels: []channel.Channel{ch}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := ch.peak.Load(); p != 1 {
		t.Errorf("%d runs of one site at once, through one Runner", p)
	}
}

// flakyLeases is a store whose lease renewals fail.
type flakyLeases struct {
	*store.Store
	err error
}

func (f *flakyLeases) AcquireLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (model.Lease, error) {
	l, err := f.Store.AcquireLease(ctx, site, holder, now, ttl)
	if err != nil {
		return nil, err
	}
	return flakyLease{l, f.err}, nil
}

// flakyLease is a lease whose renewals fail with err.
type flakyLease struct {
	model.Lease
	err error
}

func (l flakyLease) Renew(context.Context, time.Time, time.Duration) error { return l.err }

func TestARunStopsWhenItsLeaseIsLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"taken by another run", model.ErrLeaseLost},
		{"renewals failing for as long as the lease lasts", errors.New("database is locked")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := runner.New(&flakyLeases{Store: storetest.Open(t), err: tc.err})
				s := newSite(t, "    runBudget: 1h\n")
				s.publish("/a", "/b")
				ch := &fakeChannel{name: "indexnow", batch: 1, block: true}
				start := time.Now()
				rec, err := r.Run(context.Background(), s.site, runner.Options{Channels: []channel.Channel{ch}})
				if err != nil || rec.Status != model.StatusPartial || time.Since(start) > 20*time.Second ||
					!strings.Contains(strings.Join(rec.Errors, " "), "the site's lease was lost to another run") {
					t.Errorf("after %v: %v, %s, %q", time.Since(start), err, rec.Status, rec.Errors)
				}
			})
		})
	}
}
