package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// Runner runs sites. Set State; everything else has a default.
type Runner struct {
	State State
	// Client fetches sitemaps; nil means the sitemap reader's own.
	Client *http.Client
	// UserAgent is sent with every sitemap request.
	UserAgent string
	// Now is the clock.
	Now func() time.Time
	// Warn receives what the sitemap reader skipped or worked around, and the memos of sitemaps
	// a run found damaged (not used: the sitemap is read again).
	Warn func(site, msg string)
	// Notify receives what the user should know while waiting (a site busy elsewhere).
	Notify func(msg string)
	// Progress is called as a run advances, with the record so far; it must not keep it.
	Progress func(rec *model.Record)
	// LeasePoll is how often a run waiting for a busy site tries again.
	LeasePoll time.Duration
	// OnRequest, when set, is told of every request a channel makes, as it is answered (for
	// metrics); it must not block.
	OnRequest func(site string, r channel.Request)
	// OnWait, when set, is told of each wait an engine asks for as it starts (for a progress
	// line): channel.Reporter.Waiting. It must not block.
	OnWait func(site, channel, cause string, d time.Duration)
	// Pages, when set, returns what reads site's pages for the content checks of a run through
	// chans (docs/runs.md, "What changed"): the fetches their preflight shares, or the site's
	// build on disk (sitechannels.Pages). Without it, a run checks no content.
	Pages func(site *config.Site, chans []channel.Channel) channel.PageReader
	// Followers, when set, returns what follows a run of site up (Follower): called once per run
	// that writes.
	Followers func(site *config.Site) []Follower
}

// Options say how to run a site.
type Options struct {
	Trigger  string            // schedule, manual or cli
	Channels []channel.Channel // in order; each gets what is due on it
	// DryRun reads and diffs but submits nothing and writes no state.
	DryRun bool
	// NoWait makes a run of a site that is being run elsewhere return ErrBusy instead of waiting.
	NoWait bool
	// Since, when set, makes the run happen only if no run of the site started at or after it:
	// checked under the lease, so that of several schedulers firing at once (instances sharing a
	// database), one runs and the others return ErrAlreadyRun.
	Since time.Time
	// Started, when set, is called with the run's id once it holds the lease and has started.
	Started func(id int64)
	// URLs, when set, are what the run takes instead of the sitemaps, which it does not read: the
	// URLs a user chose (sitepush submit, POST /api/sites/{id}/urls). The caller keeps out those
	// not in the site's scope (InScope); the run leaves them out too. The backlog setting does not
	// apply to them.
	URLs []string
	// Force makes every URL taken due, delivered and unchanged or not — except on a channel that
	// wants only new URLs (the feed announces a page once).
	Force bool
	// RetryFailed makes due only the URLs whose last attempt failed.
	RetryFailed bool
	// Baseline, when set, is what the site's sitemaps listed before (a deploy): what it lists
	// unchanged is recorded as known, not sent, and what it lists and the sitemaps no longer do
	// is announced through IndexNow as removed, when the site answers 404 or 410 for it. The
	// caller closes it once its runs are done; runs of several sites may share it.
	Baseline *Baseline
	// Budget, when set, ends the run's budget when it ends, as runBudget does, with its cause as
	// the reason the record notes: what a Worker's invocation may spend (its subrequests, its KV
	// operations). The run stops sending, records what was answered, and the next run goes on.
	Budget context.Context
	// Later words what becomes of what the run leaves undone — failed, held back, left — in
	// every message that says so: set Forgets for a state that keeps nothing for a later run
	// (`sitepush run` with state: memory), so that none promises one.
	Later model.Later
}

// ErrAlreadyRun is returned when a run with Options.Since finds that another run started since.
var ErrAlreadyRun = errors.New("the site was already run")

// ErrFirstRunPending is returned for chosen URLs (Options.URLs) of a site that never ran and
// whose backlog setting is not all on a channel of the run: the URLs would be known, and the
// site's first run would no longer be one — it would send the whole site.
var ErrFirstRunPending = errors.New("the site's first run has not happened")

// limitedBacklog returns the first of chans whose first run for the site does not send every URL
// (its backlog is not all), or "".
func limitedBacklog(site *config.Site, chans []channel.Channel) string {
	for _, ch := range chans {
		if !site.BacklogAll(ch.Name()) {
			return ch.Name()
		}
	}
	return ""
}

// New returns a Runner over state, with the default clock and lease polling.
func New(state State) *Runner {
	return &Runner{State: state, Now: time.Now, LeasePoll: time.Second}
}

func (r *Runner) now() time.Time { return r.Now().UTC() }

// Run runs one site: reads its sitemaps, records what it finds and delivers what is due on each
// channel in turn, within the site's runBudget. The record says what happened; the error is set
// only when the run could not be carried out at all (the site busy with NoWait, the store failing).
func (r *Runner) Run(ctx context.Context, site *config.Site, opt Options) (*model.Record, error) {
	if err := r.Ready(ctx, site, opt); err != nil {
		return nil, err
	}
	rec := &model.Record{Site: site.ID, Trigger: opt.Trigger, DryRun: opt.DryRun, StartedAt: r.now(),
		Status: model.StatusRunning, Channels: map[string]*model.ChannelStats{}, Errors: []string{}}
	for _, w := range site.Warnings() {
		rec.AddNote(w)
	}
	var stalls int // the runs in a row before this one that its budget stopped before they got anywhere
	if !opt.DryRun {
		release, lost, err := r.lease(ctx, site.ID, holderID(), opt.NoWait)
		if err != nil {
			return nil, err
		}
		defer release()
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		go func() {
			select {
			case <-lost:
				cancel(model.ErrLeaseLost)
			case <-ctx.Done():
			}
		}()
		last, err := r.lastRun(ctx, site.ID)
		if err != nil {
			return nil, err
		}
		// Start times are stored to the millisecond.
		if !opt.Since.IsZero() && !last.StartedAt.Before(opt.Since.Truncate(time.Millisecond)) {
			return nil, fmt.Errorf("%w: a run of site %q started at %s", ErrAlreadyRun, site.ID, last.StartedAt.Format(time.RFC3339))
		}
		stalls = last.Stalled
		rec.StartedAt = r.now()
		if err = r.State.SaveRun(ctx, rec); err != nil {
			return nil, err
		}
		if opt.Started != nil {
			opt.Started(rec.ID)
		}
	}
	err := r.run(ctx, site, opt, rec, stalls)
	rec.FinishedAt = r.now()
	if !opt.DryRun {
		if ferr := r.State.SaveRun(context.WithoutCancel(ctx), rec); ferr != nil && err == nil {
			err = ferr
		}
	}
	return rec, err
}

// Ready returns ErrFirstRunPending, explained, when Run would refuse opt's chosen URLs now (the
// site's first run has not happened): what a caller that queues the run asks before answering.
func (r *Runner) Ready(ctx context.Context, site *config.Site, opt Options) error {
	if name := limitedBacklog(site, opt.Channels); opt.URLs != nil && name != "" {
		return r.firstRunDone(ctx, site, name)
	}
	return nil
}

// lastRun returns the site's latest execution record; a zero one when it never ran.
func (r *Runner) lastRun(ctx context.Context, site string) (model.Record, error) {
	runs, err := r.State.Runs(ctx, site, 1)
	if err != nil || len(runs) == 0 {
		return model.Record{}, err
	}
	return runs[0], nil
}

// run does the work of Run between the lease and the record, in the steps of doc.go; stalls counts
// the runs before it that made no progress.
func (r *Runner) run(ctx context.Context, site *config.Site, opt Options, rec *model.Record, stalls int) error {
	run, stop := r.contexts(ctx, site, opt)
	defer stop()
	col, query := r.collector(run.ctx, site, opt, rec)
	defer col.memo.close()
	rep := r.newRecorder(run.ctx, site.ID, rec)
	rep.dryRun, rep.chosen, rep.later = !col.mode.writes, col.mode.chosen, opt.Later
	// 1–4: read, tell pages apart, merge with what was known, choose what is due.
	res, err := r.read(run, site, opt, col, query, rep)
	if run.budget.Err() != nil && errors.Is(err, run.budget.Err()) {
		err = nil // the budget or a signal cut the read short: not a failure of the run
	}
	if res == nil {
		res = &sitemap.Result{} // cut short before the read began
	}
	// What was read is recorded even when the read was cut short; one that failed ends there.
	if err == nil {
		err = col.endRead(run.ctx)
	}
	if err != nil {
		rec.Status = model.StatusFailed
		rec.AddError(err.Error())
		return err
	}
	if err := r.checkContent(run, col); err != nil {
		rec.AddError(err.Error())
	}
	col.sayVerdicts()
	gone, err := r.baselineLeft(run.ctx, col, res)
	if err != nil {
		rec.AddError(err.Error())
	}
	rep.removals = r.probeLeft(run.budget, col, gone)
	for i, q := range col.due {
		rec.Channels[col.channels[i]].Due -= q.SortByHash()
	}
	cut := r.countSitemaps(rec, res, run.budget)
	complete := rec.Sitemaps.Failed == 0 && !cut
	// 5: hand to channels, with the followers told of the sitemaps that changed before, and
	// following the run up after.
	followers := r.followersOf(site, col.mode)
	if err := r.working(run.ctx, col, len(followers) > 0); err != nil {
		rec.AddError(err.Error())
	} else {
		followSitemaps(run.budget, site, followers, col.memo.changed, rep)
		r.deliverAll(run, col, opt, rep, res, complete)
		follow(run.budget, site, followers, rep)
	}
	if col.mode.writes {
		rep.settleLeft()
	}
	if err := r.checkAfter(run, col); err != nil {
		rec.AddError(err.Error())
	}
	if !res.Unreadable() {
		for i, q := range col.due {
			rep.answers.owe(col.channels[i], q) // those no channel was handed
		}
		ended := outcomeOfRead(cut, complete, rep.answers.all(), run.budget)
		if ended.whole() && col.mode.keepMemos {
			if err := r.markLeft(context.WithoutCancel(run.ctx), col); err != nil {
				rec.AddError(err.Error())
			}
		}
		if err := col.memo.save(context.WithoutCancel(run.ctx), ended); err != nil {
			rec.AddError(err.Error())
		}
	}
	rec.Status = r.status(run, rec, res, cut, opt.Later)
	rec.URLs = SortedURLs(rec.URLs) // a copy: a run's page may read the list meanwhile
	if col.mode.writes && !col.mode.chosen {
		r.stall(run, col, rec, res, stalls)
	}
	return nil
}

// working tells a LazyLease state that the run has work, before anything is sent: a URL due on
// a channel, or followers to tell.
func (r *Runner) working(ctx context.Context, col *collector, following bool) error {
	ll, ok := r.State.(LazyLease)
	if !ok || !col.mode.writes {
		return nil
	}
	for _, q := range col.due {
		if q.Len() > 0 {
			following = true
		}
	}
	if !following {
		return nil
	}
	return ll.Working(ctx, col.site.ID)
}

// collector makes the collector of a run, in the mode its options choose, and the query of the
// deliveries outstanding whatever their sitemap says.
func (r *Runner) collector(ctx context.Context, site *config.Site, opt Options, rec *model.Record) (*collector, model.PendingQuery) {
	names := make([]string, len(opt.Channels))
	selection := make([]channel.Selection, len(opt.Channels))
	for i, ch := range opt.Channels {
		names[i] = ch.Name()
		if c, ok := ch.(channel.Selective); ok {
			selection[i] = c.Selection(ctx)
		}
	}
	col := newCollector(r.State, site, rec, names, selection, rec.StartedAt, modeOf(opt, selection))
	col.progress = r.progress(rec)
	col.pages = r.pageReader(site, opt)
	col.base, col.later = opt.Baseline, opt.Later
	col.memo.warn = r.Warn
	query := model.PendingQuery{Failed: names, Now: rec.StartedAt, ResubmitAfter: site.ResubmitAfter.D(), DryRun: opt.DryRun,
		Recheck: map[string]time.Time{}}
	for i, s := range selection {
		if !s.OnlyNew {
			query.Resubmit = append(query.Resubmit, names[i])
		}
		// A channel that announces a page once (the feed) checks again a page its preflight left out.
		query.Recheck[names[i]] = rec.StartedAt.Add(-site.PreflightWait(names[i]))
	}
	return col, query
}

// countSitemaps counts the sitemaps read and failed. A sitemap whose read the run's end cut
// short is neither: cut reports it.
func (r *Runner) countSitemaps(rec *model.Record, res *sitemap.Result, budget context.Context) (cut bool) {
	for _, sm := range res.Sitemaps {
		switch {
		case sm.Err == nil:
			rec.Sitemaps.Read++
		case budget.Err() != nil && errors.Is(sm.Err, budget.Err()):
			cut = true
		default:
			rec.Sitemaps.Failed++
			rec.AddError(SitemapFailure(sm))
		}
	}
	return cut
}

// status sums a run up (docs/runs.md, "The execution record"). Failures come first: a run that
// failed in part and then ran out of budget is partial, not merely stopped.
func (r *Runner) status(run contexts, rec *model.Record, res *sitemap.Result, cut bool, later model.Later) string {
	ctx, budget := run.ctx, run.budget
	due, done, failed, left := 0, 0, 0, 0
	for _, st := range rec.Channels {
		due, done, failed, left = due+st.Due, done+st.Submitted, failed+st.Failed, left+st.Left
	}
	// The run stopped before its end when its budget or a signal ended it with URLs left, or
	// with sitemaps read in part: the next run goes on where it stopped. URLs left by what
	// happened — a first run waiting for a whole read, a channel that could not start — stop
	// nothing; nor do a dry run's, which a channel would not get to now.
	stopped := left > 0 && !rec.DryRun && budget.Err() != nil || cut
	rec.Stopped = stopped
	if stopped && ctx.Err() == nil && budget.Err() != nil {
		what := later.Left(human.Count(left, "due URL") + " left")
		if cut {
			what = fmt.Sprintf("the sitemaps were read only in part (%s); %s", human.Count(rec.TotalURLs, "URL"), later.ReadOn())
		}
		rec.AddNote(fmt.Sprintf("%v: %s", context.Cause(budget), what))
	}
	if stopped && ctx.Err() != nil {
		rec.AddError(fmt.Sprintf("interrupted (%v) with %s", context.Cause(ctx), later.Left(human.Count(left, "due URL")+" left")))
	}
	switch {
	case res.Unreadable() && !cut || due > 0 && done == 0 && failed > 0:
		return model.StatusFailed
	case failed > 0 || rec.Sitemaps.Failed > 0 || len(rec.Errors) > 0 && !rec.DryRun:
		return model.StatusPartial
	case stopped:
		return model.StatusBudgetExhausted
	}
	return model.StatusOK
}

// contexts are a run's two contexts, passed together so that they are never swapped: ctx is the
// run's own — a signal or the lost lease ends it, and what was answered is recorded under it — and
// budget is ctx bounded by the site's runBudget (Runner.budget), under which runs the work that
// the budget may cut short: reading the sitemaps, delivering.
type contexts struct{ ctx, budget context.Context }

// errRunBudget is why a run's budget ends when its runBudget has passed.
var errRunBudget = errors.New("runBudget ran out")

// contexts returns a run's contexts under ctx: its budget ends when the site's runBudget has
// passed, or when opt.Budget ends (what a Worker's invocation may spend), with the cause the
// record notes.
func (r *Runner) contexts(ctx context.Context, site *config.Site, opt Options) (contexts, context.CancelFunc) {
	spent, cancel := context.WithCancelCause(ctx)
	budget, stop := context.WithTimeoutCause(spent, site.RunBudget.D(), errRunBudget)
	if opt.Budget == nil {
		return contexts{ctx, budget}, func() { stop(); cancel(nil) }
	}
	unwatch := context.AfterFunc(opt.Budget, func() { cancel(context.Cause(opt.Budget)) })
	return contexts{ctx, budget}, func() { unwatch(); stop(); cancel(nil) }
}

// reader builds the sitemap reader of a site, which tells col of each sitemap it ends and, when
// col remembers sitemaps, does not read again those that did not change.
func (r *Runner) reader(ctx context.Context, site *config.Site, col *collector) *sitemap.Reader {
	opt := ReaderOptions(site, r.Client, r.UserAgent)
	opt.Cache = col.memo
	opt.Done = func(sm sitemap.Sitemap) { col.done(ctx, sm) }
	opt.Subtree = col.memo.readIndex
	opt.Repeats = true // col.tellApart
	opt.Warn = func(w sitemap.Warning) {
		if r.Warn != nil {
			r.Warn(site.ID, w.String())
		}
	}
	return sitemap.NewReader(opt)
}

// ReaderOptions are the options of the sitemap reader of a site — the limits of its sitemap:
// block — with the client and User-Agent of its requests: what a run reads with, and what
// `sitepush check` reads with, so that the two never differ.
func ReaderOptions(site *config.Site, client *http.Client, userAgent string) sitemap.Options {
	s := site.Sitemap
	return sitemap.Options{Client: client, UserAgent: userAgent, Timeout: s.Timeout.D(), Retries: s.Retries,
		RetryInterval: s.RetryInterval.D(), MaxBytes: s.MaxBytes, MaxDepth: s.MaxDepth}
}

// progress returns the function that reports progress on rec, or nil.
func (r *Runner) progress(rec *model.Record) func() {
	if r.Progress == nil {
		return nil
	}
	return func() { r.Progress(rec) }
}
