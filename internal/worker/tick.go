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
// that never ran runs at the first tick. A tick with nothing due writes nothing.
func (a *App) Tick(ctx context.Context, at time.Time) error {
	if a.err != nil {
		a.env.Logger.Error("the configuration does not load: nothing runs", "err", a.err)
		return a.err
	}
	inv := a.newInvocation(ctx, at)
	defer a.flush(ctx, inv, "tick")
	due, err := a.due(ctx, inv, at)
	if err != nil {
		return err
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
	return nil
}

// due returns the sites to run at at, those waiting longest first.
func (a *App) due(ctx context.Context, inv *invocation, at time.Time) ([]*config.Site, error) {
	type waiting struct {
		site *config.Site
		last time.Time
	}
	var out []waiting
	for i := range a.cfg.Sites {
		site := &a.cfg.Sites[i]
		last, err := inv.state.LastStarted(ctx, site.ID)
		var resume bool
		if err == nil {
			resume, err = inv.state.Resume(ctx, site.ID)
		}
		if errors.Is(err, kvstate.ErrOpsSpent) {
			return nil, err
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
	return sites, nil
}

// run runs one site on channel ("all" or one) within the invocation's budget, logs it, and sends
// the alerts it calls for. started, when set, is told the run's id once it holds the lease.
func (a *App) run(ctx context.Context, inv *invocation, site *config.Site, trigger, channel string, started func(int64)) (*model.Record, error) {
	r := runner.New(inv.state)
	r.Client, r.UserAgent, r.Now = inv.client, a.cfg.UserAgent, inv.now
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
