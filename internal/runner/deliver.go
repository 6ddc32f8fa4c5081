package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// deliverAll hands each channel what is due on it, in turn — or, in a dry run, shows what each
// would send — once the read is over: complete says whether every sitemap was read whole.
func (r *Runner) deliverAll(run contexts, col *collector, opt Options, rep *recorder, res *sitemap.Result, complete bool) {
	ctx, budget := run.ctx, run.budget
	switch {
	case !col.mode.writes:
		for i := range opt.Channels {
			if err := col.baseline(ctx, i, rep); err != nil {
				rep.Failed(col.channels[i], err.Error())
			}
		}
		col.previewFirstRuns()
		for i, ch := range opt.Channels {
			if col.backlog(ctx, i, complete, rep) {
				col.preview(budget, i, ch, rep)
			}
		}
	case !res.Unreadable():
		for i, ch := range opt.Channels {
			q := col.due[i]
			rep.answers.owe(col.channels[i], q)
			newest, err := col.newestOf(ctx, i)
			if err != nil {
				rep.Failed(col.channels[i], err.Error())
				continue
			}
			q.Read(newest, complete)
			if err := col.baseline(ctx, i, rep); err != nil {
				rep.Failed(col.channels[i], err.Error())
				continue
			}
			if col.backlog(ctx, i, complete, rep) {
				r.deliver(budget, ch, q, rep)
			}
			col.due[i] = nil // sent: its memory is free for what follows
		}
	}
}

// deliver runs one channel, isolated: its failure is recorded and the next channel goes on.
func (r *Runner) deliver(ctx context.Context, ch channel.Channel, q *channel.Queue, rep *recorder) {
	switch idle, ok := ch.(channel.Idle); {
	case q.Len() > 0 && ctx.Err() == nil:
		// An error that is only the end of the budget is no failure of the channel.
		if err := ch.Deliver(ctx, q, rep); err != nil && !budgetEnded(ctx, err) {
			rep.mu.Lock()
			rep.rec.AddError(ch.Name() + ": " + err.Error())
			rep.mu.Unlock()
		}
	case q.Len() == 0 && ok && ctx.Err() == nil:
		idle.Idle(ctx, rep)
	}
	rep.endWaits(ch.Name())
}

// settleLeft counts, once a run's channels delivered, the due URLs each did not get to — its
// budget, a signal, a first run that waits for a whole read, a channel that could not start, a
// sitemap that could not be read — as left for the next run: a channel's due URLs are then
// submitted, failed, held, ineligible or left (docs/runs.md, "The execution record").
func (r *recorder) settleLeft() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, st := range r.rec.Channels {
		st.Left = st.Due - st.Submitted - st.Failed - st.Held - st.Ineligible
	}
}

// budgetEnded reports whether err is only the end of the run's budget (ctx): no failure, the work
// it stopped is left for the next run.
func budgetEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil && errors.Is(err, ctx.Err())
}

// previewFirstRuns shows, in a dry run, what a channel's first run will deliver: only its newest
// pages; every other due URL becomes known.
func (c *collector) previewFirstRuns() {
	for ch, name := range c.channels {
		stats := c.rec.Channels[name]
		if !c.selection[ch].FirstRun || stats.Due == 0 {
			continue // a run with nothing due does not deliver
		}
		newest := c.uncovered(c.newest[ch].list())
		stats.Backlog += stats.Due - len(newest)
		stats.Due, stats.Sample = len(newest), nil
		for _, p := range newest[:min(len(newest), sampleSize)] {
			stats.Sample = append(stats.Sample, p.URL)
		}
	}
}

// backlog applies the channel's backlog setting to channel ch's first run for the site — a run in
// which none of the URLs read is known on the channel — unless the channel selects its first run
// itself (the feed): the URLs the setting leaves out are recorded as known, never sent
// (model.UnsentBacklog). A first run that did not read every sitemap whole waits for one that does, so that no
// URL of the backlog is taken for a new one later. It reports whether the channel goes on.
func (c *collector) backlog(ctx context.Context, ch int, complete bool, rep *recorder) bool {
	q, name := c.due[ch], c.channels[ch]
	if c.mode.chosen && c.selection[ch].FirstRun {
		rep.Noted(name, "its first run takes the newest pages of the sitemaps: "+rep.later.FirstRunOver("the chosen URLs"))
		return false
	}
	if !c.limitedFirstRun(ch) || c.selection[ch].FirstRun || c.mode.chosen || q.Len() == 0 {
		return true
	}
	if !complete {
		rep.Noted(name, fmt.Sprintf("a first run with backlog %s waits for a run that reads every sitemap whole: nothing was sent", c.site.BacklogOf(name)))
		return false
	}
	old := q.Split(func(m channel.Meta) bool {
		_, notice := rep.removals.status[m.Hash] // a removal notice is no page of the backlog
		return notice || c.site.FirstRunSends(name, m.Lastmod, c.now)
	})
	for from := 0; from < old.Len(); from += lookUpBatch {
		if err := rep.Finished(channel.Outcome{Channel: name, URLs: old.Refs(from, from+lookUpBatch), Unsent: model.UnsentBacklog}); err != nil {
			return false
		}
	}
	if old.Len() > 0 {
		rep.Noted(name, fmt.Sprintf("first run with backlog %s: %s older than that, not sent (%s)", c.site.BacklogOf(name), human.Count(old.Len(), "URL"), rep.later.Backlog(old.Len())))
	}
	return true
}

// limitedFirstRun reports whether channel ch has its first run for the site — none of the URLs
// read is known on it — with a backlog setting that leaves some out.
func (c *collector) limitedFirstRun(ch int) bool {
	return !c.site.BacklogAll(c.channels[ch]) && !c.known[ch]
}

// preview shows, in a dry run, what channel ch would send now: in its order, less what it would
// hold back (Bing's quota left today) and what it would not get to (Bing refusing the key or out
// of reach), with a sample of the first URLs it would send.
func (c *collector) preview(ctx context.Context, ch int, deliverer channel.Channel, rep *recorder) {
	if c.selection[ch].FirstRun && c.rec.Channels[c.channels[ch]].Sample != nil {
		return // previewFirstRuns showed it
	}
	q, held := c.due[ch], 0
	stats := c.rec.Channels[c.channels[ch]]
	if p, ok := deliverer.(channel.Previewer); ok && q.Len() > 0 && ctx.Err() == nil {
		quota := stats.Held
		held = p.Preview(ctx, q, rep)
		// What Preview holds beyond the quota it told of, the run would not get to (a refused
		// key, an engine out of reach): left, as the run would count it.
		stats.Left = held - (stats.Held - quota)
	}
	refs, err := q.Slice(ctx, 0, min(sampleSize, q.Len()-held))
	if err != nil {
		rep.Failed(c.channels[ch], err.Error())
		return
	}
	stats.Sample = make([]string, len(refs))
	for i, d := range refs {
		stats.Sample[i] = d.URL
	}
}
