// Package scheduler starts each site's runs on its cron schedule (UTC). It keeps no state of its
// own: what ran when is in the store, so a run missed while sitepush was down is made up once at
// start-up, and schedulers of several instances sharing a database fire together but run each
// site once (the runner checks, under the site's lease, that no run started since the fire time).
package scheduler

import (
	"context"
	"log/slog"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// Scheduler fires the sites' schedules.
type Scheduler struct {
	// Sites returns the sites to schedule, as they are now; it is read again every Refresh and on
	// Wake, so that sites created, changed or deleted through the API are followed.
	Sites func() []*config.Site
	// LastStarted returns when a site's latest run started; zero when it never ran.
	LastStarted func(ctx context.Context, site string) (time.Time, error)
	// Fire starts a run of site for the fire time at; it must not block.
	Fire func(site *config.Site, at time.Time)
	// Refresh is how often Sites is read again, for sites changed by other instances.
	Refresh time.Duration
	Logger  *slog.Logger

	wake chan struct{}
}

// entry is one site's next fire time under the schedule it was computed for.
type entry struct {
	spec string
	next time.Time
}

// New returns a scheduler; Run starts it.
func New(sites func() []*config.Site, lastStarted func(context.Context, string) (time.Time, error),
	fire func(*config.Site, time.Time), logger *slog.Logger) *Scheduler {
	return &Scheduler{Sites: sites, LastStarted: lastStarted, Fire: fire, Refresh: 30 * time.Second, Logger: logger,
		wake: make(chan struct{}, 1)}
}

// Wake makes the scheduler read the sites again now: one was created, changed or deleted.
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run fires schedules until ctx ends.
func (s *Scheduler) Run(ctx context.Context) {
	next := map[string]entry{}
	for {
		now := time.Now().UTC()
		s.update(ctx, next, now)
		wait := s.Refresh
		for _, e := range next {
			wait = min(wait, e.next.Sub(now)) // update left every next time after now
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-s.wake:
			t.Stop()
		case <-t.C:
		}
	}
}

// update follows the site list and fires what is due at now.
func (s *Scheduler) update(ctx context.Context, next map[string]entry, now time.Time) {
	seen := map[string]bool{}
	for _, site := range s.Sites() {
		sched := site.Cron()
		if sched == nil || sched.Next(now).IsZero() {
			continue // never fires: validation refuses such schedules
		}
		seen[site.ID] = true
		e, ok := next[site.ID]
		switch {
		case !ok:
			s.makeUp(ctx, site, now)
			e = entry{spec: site.Schedule, next: sched.Next(now)}
		case e.spec != site.Schedule:
			e = entry{spec: site.Schedule, next: sched.Next(now)}
		case !e.next.After(now):
			s.Fire(site, e.next)
			e.next = sched.Next(now)
		}
		next[site.ID] = e
	}
	for id := range next {
		if !seen[id] {
			delete(next, id)
		}
	}
}

// makeUp fires, once, a site whose schedule came while no scheduler was running: its latest run
// started before the schedule's first fire time after it. A site that never ran waits for its
// schedule (or a trigger).
func (s *Scheduler) makeUp(ctx context.Context, site *config.Site, now time.Time) {
	last, err := s.LastStarted(ctx, site.ID)
	if err != nil {
		s.Logger.Error("cannot tell whether a scheduled run was missed", "site", site.ID, "err", err)
		return
	}
	if last.IsZero() {
		return
	}
	if missed := site.Cron().Next(last.UTC()); !missed.IsZero() && !missed.After(now) {
		s.Logger.Info("making up a scheduled run missed while sitepush was not running", "site", site.ID,
			"last_run", last.UTC().Format(time.RFC3339), "missed", missed.Format(time.RFC3339))
		s.Fire(site, missed)
	}
}
