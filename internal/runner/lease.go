package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

const (
	// leaseTTL is how long a lease outlives its last renewal: a killed run's site is free again
	// this long after.
	leaseTTL = 15 * time.Second
	// leaseRenew is how often a live run renews its lease.
	leaseRenew = 5 * time.Second
)

// ErrBusy is returned when a site is being run elsewhere and the run was told not to wait.
var ErrBusy = errors.New("site is busy")

// holderID names one run in leases: host and pid, to tell people who holds a site, and a random
// part, since pids repeat and one process runs many sites, and may run one site twice in a row.
func holderID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), strconv.FormatUint(rand.Uint64(), 36))
}

// lease takes the site's lease, waiting for it unless noWait, and keeps it renewed until the
// returned release is called. lost is closed if the lease is lost on the way.
func (r *Runner) lease(ctx context.Context, site, holder string, noWait bool) (release func(), lost <-chan struct{}, err error) {
	said := false
	var l model.Lease
	for {
		var held *model.LeaseHeld
		l, err = r.State.AcquireLease(ctx, site, holder, r.now(), leaseTTL)
		if err == nil {
			break
		}
		if !errors.As(err, &held) {
			return nil, nil, err
		}
		if noWait {
			return nil, nil, fmt.Errorf("%w: site %q is being run by %s (lease until %s); skipped", ErrBusy, site, held.Holder, held.Until.Format(time.TimeOnly))
		}
		if !said && r.Notify != nil {
			r.Notify(fmt.Sprintf("site %q is being run by %s; waiting for it to finish (a killed run frees it by %s UTC)", site, held.Holder, held.Until.Format(time.TimeOnly)))
			said = true
		}
		if err := channel.Sleep(ctx, r.LeasePoll); err != nil {
			return nil, nil, err
		}
	}
	done, lostCh, renewing := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(renewing)
		r.renew(l, done, lostCh)
	}()
	return func() {
		close(done)
		<-renewing // no renewal after the release, nor past the run
		_ = l.Release(context.WithoutCancel(ctx))
	}, lostCh, nil
}

// renew extends the lease every leaseRenew until done. It closes lost when the lease was lost,
// or when renewing has failed for so long (the database busy, or out of reach) that the lease
// may have expired and another run taken the site: the run must stop rather than overlap.
func (r *Runner) renew(l model.Lease, done <-chan struct{}, lost chan<- struct{}) {
	t := time.NewTicker(leaseRenew)
	defer t.Stop()
	renewed := r.now()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), leaseRenew-time.Second)
			err := l.Renew(ctx, r.now(), leaseTTL)
			cancel()
			switch {
			case err == nil:
				renewed = r.now()
			case errors.Is(err, model.ErrLeaseLost) || r.now().Sub(renewed) >= leaseTTL-leaseRenew:
				close(lost)
				return
			}
		}
	}
}
