package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// ErrStopping is returned by Trigger once Shutdown has begun.
var ErrStopping = errors.New("sitepush is shutting down; it runs nothing new")

// ErrQueued is returned by Trigger, Submit and RetryFailed for a site whose triggered run waits
// in the queue already, and is another (other channels, chosen URLs): nothing more is queued.
var ErrQueued = errors.New("a triggered run of the site waits in the queue already")

// Queued is the run id Trigger, Submit and RetryFailed return for a run that waits in the queue,
// every slot being taken: it has no record yet, and gets one when it starts.
const Queued int64 = 0

// Runs starts and follows the runs of a server, scheduled and triggered, concurrency at once from
// one queue, where a triggered run goes before the scheduled ones. A site busy in this process or
// another is not run twice (its lease).
type Runs struct {
	runner *runner.Runner
	// channels returns the channels of a run of site: every enabled one for "all", else the one named.
	channels func(site *config.Site, only string) []channel.Channel
	// finished is told of every run that ran, when its record is final.
	finished func(rec *model.Record)
	logger   *slog.Logger

	ctx    context.Context // the runs', ended by Shutdown
	cancel context.CancelFunc
	// pool runs the runs, concurrency at once, each holding its slot for SlotTurn at most.
	pool *pool

	// OnStart, when set, is told when a run has started (statuses changed).
	OnStart func()

	mu     sync.Mutex
	active map[string]int64 // site → id of its run in this process
}

// SlotTurn is how long a run holds its slot at most: the longest one site can delay
// another's scheduled run, while fewer runs than slots are past their turn.
const SlotTurn = 30 * time.Second

// NewRuns returns Runs that let concurrency runs go at once, each holding its slot for at most
// SlotTurn.
func NewRuns(r *runner.Runner, channels func(*config.Site, string) []channel.Channel, finished func(*model.Record),
	logger *slog.Logger, concurrency int) *Runs {
	ctx, cancel := context.WithCancel(context.Background())
	runs := &Runs{runner: r, channels: channels, finished: finished, logger: logger, ctx: ctx, cancel: cancel,
		active: map[string]int64{}}
	runs.pool = newPool(concurrency, SlotTurn, runs.scheduled)
	return runs
}

// busyTries and busyWait bound how a scheduled run tries again a site found busy: the holder
// may be another instance that only checks, for an earlier fire time, that the site was run.
const (
	busyTries = 3
	busyWait  = time.Second
)

// Scheduled queues a run of site for its schedule's fire time at, unless a run started since
// then (in this process or another). A site already queued is queued once, for its oldest fire
// time; a site busy with a run is skipped: the run going stands for this fire time.
func (r *Runs) Scheduled(site *config.Site, at time.Time) {
	r.pool.add(site, at)
}

// Queued returns how many runs, scheduled and triggered, wait for a slot.
func (r *Runs) Queued() int {
	return r.pool.queued()
}

// scheduled makes one try of a scheduled run, in one of the pool's slots, and reports whether
// the site was busy and is to be tried again.
func (r *Runs) scheduled(site *config.Site, at time.Time, try int) (again bool) {
	_, err := r.run(site, runner.Options{Trigger: "schedule", Since: at, Channels: r.channels(site, "all")}, nil)
	switch {
	case errors.Is(err, runner.ErrBusy) && try < busyTries:
		return true
	case errors.Is(err, runner.ErrBusy), errors.Is(err, runner.ErrAlreadyRun):
		r.logger.Info("scheduled run skipped", "site", site.ID, "why", err.Error())
	case err != nil && r.ctx.Err() == nil:
		r.logger.Error("scheduled run could not start", "site", site.ID, "err", err)
	}
	return false
}

// Trigger starts a run of site on channel ("all" or one channel) now, when one of the
// concurrency slots is free, and returns its id once it has started; with every slot taken, it
// queues the run before the scheduled ones and returns Queued. A trigger of a site whose run waits
// in the queue takes a scheduled run's place, or is the same triggered run (Queued); the error is
// runner.ErrBusy when the site is being run, ErrQueued when another triggered run of it waits.
func (r *Runs) Trigger(site *config.Site, channel string) (int64, error) {
	return r.start(site, "run "+channel, runner.Options{Trigger: "manual", Channels: r.channels(site, channel)})
}

// Submit starts a run of site that sends urls on channel, delivered unchanged or not if force,
// as Trigger does. The caller keeps out the URLs the site does not take (runner.Refused).
func (r *Runs) Submit(site *config.Site, channel string, urls []string, force bool) (int64, error) {
	return r.start(site, "", runner.Options{Trigger: "manual", Channels: r.channels(site, channel), URLs: urls, Force: force})
}

// RetryFailed starts a run of site on channel that sends again only the URLs whose last attempt
// failed — what `sitepush run --retry-failed` does — as Trigger does.
func (r *Runs) RetryFailed(site *config.Site, channel string) (int64, error) {
	return r.start(site, "retry "+channel, runner.Options{Trigger: "manual", Channels: r.channels(site, channel), RetryFailed: true})
}

// start starts a run as opt says, in a free slot, and returns its id once it has started; with
// every slot taken, it queues the run and returns Queued. same says what the run does, for a
// trigger asking the same again while it waits (pool.trigger). What the run would refuse now
// (chosen URLs before the site's first run) is refused before it is queued.
func (r *Runs) start(site *config.Site, same string, opt runner.Options) (int64, error) {
	if err := r.runner.Ready(r.ctx, site, opt); err != nil {
		return 0, err
	}
	started, done := make(chan int64, 1), make(chan error, 1)
	run := func(waited bool) {
		_, err := r.run(site, opt, started)
		if waited {
			r.notStarted(site, err)
		}
		done <- err
	}
	switch r.pool.trigger(site, same, run) {
	case poolStopped:
		return 0, ErrStopping
	case siteRunning:
		return 0, fmt.Errorf("%w: site %q is being run by this process", runner.ErrBusy, site.ID)
	case siteQueued:
		return 0, fmt.Errorf("%w: site %q", ErrQueued, site.ID)
	case queuedNow:
		r.logger.Info("triggered run queued: every slot is taken", "site", site.ID, "queued", r.pool.queued())
		return Queued, nil
	}
	select {
	case id := <-started:
		return id, nil
	case err := <-done:
		select {
		case id := <-started:
			return id, nil // it started, and ended before this looked
		default:
			return 0, err
		}
	}
}

// notStarted logs why a triggered run that waited in the queue did not start, if it did not:
// its trigger was answered already.
func (r *Runs) notStarted(site *config.Site, err error) {
	switch {
	case err == nil, r.ctx.Err() != nil:
	case errors.Is(err, runner.ErrBusy), errors.Is(err, runner.ErrFirstRunPending):
		r.logger.Info("queued triggered run skipped", "site", site.ID, "why", err.Error())
	default:
		r.logger.Error("queued triggered run could not start", "site", site.ID, "err", err)
	}
}

// Active returns the id of site's run in this process, if one is going.
func (r *Runs) Active(site string) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.active[site]
	return id, ok
}

// Shutdown stops starting runs, drops the queued ones, and ends those going — they stop sending,
// record what was answered, and finish their records — waiting for them at most wait. It reports
// whether they all ended.
func (r *Runs) Shutdown(wait time.Duration) bool {
	r.pool.stop()
	r.cancel()
	ended := make(chan struct{})
	go func() {
		r.pool.wait()
		close(ended)
	}()
	select {
	case <-ended:
		return true
	case <-time.After(wait):
		return false
	}
}

// run runs a site without waiting for its lease, tells started its id, and reports the run.
func (r *Runs) run(site *config.Site, opt runner.Options, started chan<- int64) (*model.Record, error) {
	opt.NoWait = true
	opt.Started = func(id int64) {
		r.mu.Lock()
		r.active[site.ID] = id
		r.mu.Unlock()
		if r.OnStart != nil {
			r.OnStart()
		}
		if started != nil {
			started <- id
		}
	}
	rec, err := r.runner.Run(r.ctx, site, opt)
	if rec == nil {
		return nil, err // it never started: the site's run going, if any, is another's
	}
	r.mu.Lock()
	if r.active[site.ID] == rec.ID {
		delete(r.active, site.ID)
	}
	r.mu.Unlock()
	r.logger.Log(r.ctx, runner.LogLevel(rec), "run finished", runner.LogAttrs(rec)...)
	if r.finished != nil {
		r.finished(rec)
	}
	return rec, err
}
