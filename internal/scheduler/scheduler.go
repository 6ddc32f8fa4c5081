// Package scheduler starts each site's runs on its cron schedule (UTC). It keeps no state of its
// own: what ran when is in the store, so a run missed while sitepush was down is made up once at
// start-up, and schedulers of several instances sharing a database fire together but run each
// site once (the runner checks, under the site's lease, that no run started since the fire time).
package scheduler

import (
	"container/heap"
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
	// LastStartedAll, when set, returns when the latest run of each site that ran started, in
	// one read: a read that finds many new sites (the first, of thousands) asks it once
	// instead of LastStarted for each.
	LastStartedAll func(ctx context.Context) (map[string]time.Time, error)
	// Fire starts a run of site for the fire time at; it must not block.
	Fire func(site *config.Site, at time.Time)
	// Refresh is how often Sites is read again, for sites changed by other instances.
	Refresh time.Duration
	Logger  *slog.Logger

	wake chan struct{}
	// next is the schedule's first fire time after t: site.Cron().Next, which tests count.
	next func(site *config.Site, t time.Time) time.Time
}

// New returns a scheduler; Run starts it.
func New(sites func() []*config.Site, lastStarted func(context.Context, string) (time.Time, error),
	fire func(*config.Site, time.Time), logger *slog.Logger) *Scheduler {
	return &Scheduler{Sites: sites, LastStarted: lastStarted, Fire: fire, Refresh: 30 * time.Second, Logger: logger,
		wake: make(chan struct{}, 1), next: func(site *config.Site, t time.Time) time.Time {
			if sched := site.Cron(); sched != nil {
				return sched.Next(t)
			}
			return time.Time{} // no schedule: validation refuses it
		}}
}

// Wake makes the scheduler read the sites again now: one was created, changed or deleted.
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run fires schedules until ctx ends. Between two reads of the sites it only pops the fire times
// that came due; a read computes fire times only for the sites created or changed since the last.
func (s *Scheduler) Run(ctx context.Context) {
	p := newPlan()
	read := true
	var readAt time.Time
	for {
		now := time.Now().UTC()
		if read {
			s.follow(ctx, p, now)
			readAt = now.Add(s.Refresh)
		}
		s.fire(p, now)
		wait := readAt.Sub(now)
		if p.queue.Len() > 0 {
			wait = min(wait, p.queue.items[0].next.Sub(now)) // fire left every next time after now
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-s.wake:
			t.Stop()
			read = true
		case <-t.C:
			read = !time.Now().Before(readAt)
		}
	}
}

// plan is what the scheduler knows between two reads of the sites: each site's next fire time,
// under the schedule it was computed for, and the fire times in a min-heap.
type plan struct {
	entries map[string]*entry
	queue   heapOf[*entry]
	read    uint64 // the number of reads, which marks the entries each read found
}

func newPlan() *plan {
	return &plan{entries: map[string]*entry{}, queue: heapOf[*entry]{less: earlierEntry}}
}

// entry is one site's next fire time; a site whose schedule never fires is kept out of the queue
// (index -1), so that it costs no computation on each read either.
type entry struct {
	site  *config.Site
	spec  string
	next  time.Time
	read  uint64
	index int
}

// follow reads the sites: a site unchanged since the last read costs a map lookup; a new one has
// its missed run made up and its next fire time computed; a changed schedule counts from now; a
// deleted site leaves the plan.
func (s *Scheduler) follow(ctx context.Context, p *plan, now time.Time) {
	p.read++
	var fresh []*config.Site
	for _, site := range s.Sites() {
		e, ok := p.entries[site.ID]
		switch {
		case ok && e.spec == site.Schedule:
			e.site = site // the same schedule: its fire time stands
		case ok:
			e.site, e.spec = site, site.Schedule
			p.schedule(e, s.next(site, now))
		default:
			fresh = append(fresh, site)
			e = &entry{site: site, spec: site.Schedule, index: -1}
			p.entries[site.ID] = e
			p.schedule(e, s.next(site, now))
		}
		e.read = p.read
	}
	s.makeUp(ctx, fresh, now)
	for id, e := range p.entries {
		if e.read != p.read {
			p.schedule(e, time.Time{})
			delete(p.entries, id)
		}
	}
}

// fire fires every site due at now, each for its fire time, and moves it to its next one.
func (s *Scheduler) fire(p *plan, now time.Time) {
	for p.queue.Len() > 0 && !p.queue.items[0].next.After(now) {
		e := p.queue.items[0]
		s.Fire(e.site, e.next)
		p.schedule(e, s.next(e.site, now))
	}
}

// schedule sets e's next fire time, taking it out of the queue when it is zero (never).
func (p *plan) schedule(e *entry, next time.Time) {
	e.next = next
	switch {
	case next.IsZero() && e.index >= 0:
		heap.Remove(&p.queue, e.index)
	case next.IsZero():
	case e.index >= 0:
		heap.Fix(&p.queue, e.index)
	default:
		heap.Push(&p.queue, e)
	}
}

// makeUp fires, once, each new site whose schedule came while no scheduler was running: its
// latest run started before the schedule's first fire time after it. A site that never ran waits
// for its schedule (or a trigger).
func (s *Scheduler) makeUp(ctx context.Context, sites []*config.Site, now time.Time) {
	last := s.lastStarted(ctx, sites)
	for _, site := range sites {
		started, ok := last[site.ID]
		if !ok {
			continue
		}
		if missed := s.next(site, started.UTC()); !missed.IsZero() && !missed.After(now) {
			s.Logger.Info("making up a scheduled run missed while sitepush was not running", "site", site.ID,
				"last_run", started.UTC().Format(time.RFC3339), "missed", missed.Format(time.RFC3339))
			s.Fire(site, missed)
		}
	}
}

// lastStarted returns when the latest run of each of sites that ran started: in one read
// (LastStartedAll) for more than one site, else a read a site. A site that cannot be read is left
// out, its error logged: its missed run, if any, is not made up.
func (s *Scheduler) lastStarted(ctx context.Context, sites []*config.Site) map[string]time.Time {
	if len(sites) > 1 && s.LastStartedAll != nil {
		all, err := s.LastStartedAll(ctx)
		if err != nil {
			s.Logger.Error("cannot tell whether scheduled runs were missed", "sites", len(sites), "err", err)
		}
		return all
	}
	last := map[string]time.Time{}
	for _, site := range sites {
		started, err := s.LastStarted(ctx, site.ID)
		switch {
		case err != nil:
			s.Logger.Error("cannot tell whether a scheduled run was missed", "site", site.ID, "err", err)
		case !started.IsZero():
			last[site.ID] = started
		}
	}
	return last
}

// earlierEntry orders the fire times: by time, then by site id, so that sites due together are
// fired in one order.
func earlierEntry(a, b *entry) bool {
	if !a.next.Equal(b.next) {
		return a.next.Before(b.next)
	}
	return a.site.ID < b.site.ID
}

func (e *entry) place(i int) { e.index = i }
