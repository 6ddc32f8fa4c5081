package worker

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/sitepush/sitepush/internal/alert"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/sitechannels"
)

// Tick is the Cron Trigger's handler: at is the event's scheduledTime. It runs, one after the
// other, every site whose schedule came since its last run started — once, however many times it
// came (as serve does after a downtime) — or whose last run stopped before its end, the longest
// waiting first, until the invocation's budget is spent; the rest wait for the next tick. A site
// that never ran runs at the first tick. Then it plans when each site is next due, in the
// schedule (kvstate.ScheduleKey) that the JS module reads to leave Go asleep on the ticks with
// nothing due: a site the plan says is not due is not read at all, and a tick with nothing due
// writes nothing. It returns what the tick spent.
func (a *App) Tick(ctx context.Context, at time.Time) (Spent, error) {
	if a.err != nil {
		a.env.Logger.Error("the configuration does not load: nothing runs", "err", a.err)
		return Spent{}, a.err
	}
	inv := a.newInvocation(ctx, at)
	due, next, err := a.due(ctx, inv, at)
	if err != nil {
		return a.flush(ctx, inv), err
	}
	for i, site := range due {
		if inv.budget.Err() != nil {
			a.env.Logger.Info("left for the next tick", "sites", len(due)-i, "why", context.Cause(inv.budget).Error())
			break
		}
		// A run that started logged how it ended; one that did not is logged here.
		if rec, err := a.run(ctx, inv, site, "schedule", "all", nil); rec == nil && err != nil && !errors.Is(err, runner.ErrBusy) {
			a.env.Logger.Error("a scheduled run could not start", "site", site.ID, "err", err)
		}
	}
	for i := range a.cfg.Sites {
		if site := &a.cfg.Sites[i]; !next[site.ID].planned {
			next[site.ID] = planned{a.next(ctx, inv, site), true}
		}
	}
	plan := make(map[string]kvstate.Due, len(next))
	for id, p := range next {
		plan[id] = p.Due
	}
	a.plan(ctx, inv, plan, true)
	return a.flush(ctx, inv), nil
}

// planned is when a site is next due, once known.
type planned struct {
	kvstate.Due
	planned bool
}

// due returns the sites to run at at, those waiting longest first, and when the sites not due
// are next due by the schedule's plan (their state not read).
func (a *App) due(ctx context.Context, inv *invocation, at time.Time) ([]*config.Site, map[string]planned, error) {
	plan, err := inv.state.Planned(ctx, a.env.Fingerprint)
	if errors.Is(err, kvstate.ErrOpsSpent) {
		return nil, nil, err
	}
	if err != nil { // without a plan, every site's state is read
		a.env.Logger.Warn("the schedule could not be read: every site's state is", "err", err)
	}
	type waiting struct {
		site *config.Site
		last time.Time
	}
	var out []waiting
	next := map[string]planned{}
	for i := range a.cfg.Sites {
		site := &a.cfg.Sites[i]
		if d, ok := plan[site.ID]; ok && (d.Never || d.At.After(at)) {
			next[site.ID] = planned{d, true}
			continue
		}
		last, err := inv.state.LastStarted(ctx, site.ID)
		var resume bool
		if err == nil {
			resume, err = inv.state.Resume(ctx, site.ID)
		}
		if errors.Is(err, kvstate.ErrOpsSpent) {
			return nil, nil, err
		}
		if err != nil { // one site's state that cannot be read stops no other
			a.env.Logger.Error("a site's schedule could not be read: it does not run", "site", site.ID, "err", err)
			continue
		}
		sched := site.Cron()
		if resume || last.IsZero() || sched != nil && !sched.Next(last).After(at) {
			out = append(out, waiting{site, last})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].last.Before(out[j].last) })
	sites := make([]*config.Site, len(out))
	for i, w := range out {
		sites[i] = w.site
	}
	return sites, next, nil
}

// next is when site is next due, by what the invocation knows of its state: at the next tick
// when its last run stopped before its end, when it never ran, or when its state cannot be read.
func (a *App) next(ctx context.Context, inv *invocation, site *config.Site) kvstate.Due {
	last, err := inv.state.LastStarted(ctx, site.ID)
	var resume bool
	if err == nil {
		resume, err = inv.state.Resume(ctx, site.ID)
	}
	sched := site.Cron()
	switch {
	case err != nil || resume || last.IsZero():
		return kvstate.Due{}
	case sched == nil:
		return kvstate.Due{Never: true}
	}
	return kvstate.Due{At: sched.Next(last)}
}

// plan sets when sites are next due in the schedule: every site (whole, under the Worker's
// fingerprint: a tick), or some (a triggered run). It is written with the invocation's state.
func (a *App) plan(ctx context.Context, inv *invocation, due map[string]kvstate.Due, whole bool) {
	if err := inv.state.Plan(ctx, a.env.Fingerprint, due, whole); err != nil {
		a.env.Logger.Warn("the schedule could not be planned: the next tick reads every site's state", "err", err)
	}
}

// run runs one site on channel ("all" or one) within the invocation's budget, logs it, and sends
// the alerts it calls for. started, when set, is told the run's id once it holds the lease.
func (a *App) run(ctx context.Context, inv *invocation, site *config.Site, trigger, channel string, started func(int64)) (*model.Record, error) {
	r := runner.New(inv.state)
	r.Client, r.UserAgent, r.Now = inv.client, a.cfg.UserAgent, inv.now
	r.Pages = sitechannels.Pages(inv.client, a.cfg.UserAgent)
	r.Warn = func(site, msg string) { a.env.Logger.Warn(msg, "site", site) }
	opt := runner.Options{Trigger: trigger, NoWait: true, Budget: inv.budget, Started: started,
		Channels: sitechannels.For(site, channel, inv.client, a.cfg.UserAgent, inv.state, inv.now())}
	rec, err := r.Run(ctx, site, opt)
	if rec == nil {
		return nil, err
	}
	a.env.Logger.Log(ctx, runner.LogLevel(rec), "run finished", runner.LogAttrs(rec)...)
	a.alert(ctx, inv, rec)
	return rec, err
}

// alert sends the alerts a run calls for, through the invocation's subrequests.
func (a *App) alert(ctx context.Context, inv *invocation, rec *model.Record) {
	sender := alert.New(a.cfg.Webhook, inv.client, a.cfg.UserAgent)
	for _, al := range sender.Alerts(rec) {
		if err := sender.Send(ctx, al); err != nil {
			a.env.Logger.Error("sending an alert", "site", rec.Site, "err", err)
		}
	}
}
