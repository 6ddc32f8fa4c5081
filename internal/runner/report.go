package runner

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// recorder is the Reporter of a run: it writes every outcome to the store as it arrives and keeps
// the run's counters.
type recorder struct {
	ctx   context.Context // not the run's budget: what was answered is recorded even past it
	state State
	site  string
	now   func() time.Time
	rec   *model.Record
	// dryRun makes Finished count the outcome without recording it.
	dryRun bool
	// chosen says the run's URLs are chosen ones (Options.URLs): what a quota holds back of them
	// is kept for no later run.
	chosen bool
	// later words what becomes of what the run leaves undone (Options.Later).
	later model.Later
	// onChange is called after every outcome, for progress reports.
	onChange func()
	// onRequest, when set, is told of every request.
	onRequest func(site string, r channel.Request)
	// onWait, when set, is told of every wait a channel starts.
	onWait func(site, channel, cause string, d time.Duration)

	// answers keeps which due URLs the outcomes answered: what decides whether the read settled.
	answers *answers
	// urls names the URLs of the outcomes in the record, bounded (Record.URLs).
	urls runURLs

	// removals are the removal notices queued on the channel that takes them (probeLeft): their
	// acceptance is recorded.
	removals notices

	mu      sync.Mutex
	latency map[*model.EndpointStats]time.Duration
	waits   map[string]*waits // per channel
}

// newRecorder returns the Reporter of a run of site, which writes to rec and tells r's hooks.
func (r *Runner) newRecorder(ctx context.Context, site string, rec *model.Record) *recorder {
	return &recorder{ctx: context.WithoutCancel(ctx), state: r.State, site: site, now: r.now, rec: rec,
		onChange: r.progress(rec), onRequest: r.OnRequest, onWait: r.OnWait,
		latency: map[*model.EndpointStats]time.Duration{}, waits: map[string]*waits{}, answers: newAnswers()}
}

func (r *recorder) Requested(req channel.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := r.rec.Channels[req.Channel]
	ep := ch.Endpoints[req.Endpoint]
	if ep == nil {
		ep = &model.EndpointStats{}
		ch.Endpoints[req.Endpoint] = ep
	}
	// A request counts once, however many tries it took, as its last try ended it: a try the
	// engine asked to wait after (429) or failed for now (5xx) is a retry, not a failure.
	if req.Retry {
		ep.Retries++
	} else {
		ep.Requests++
	}
	switch req.Outcome() {
	case channel.TryAccepted:
		ep.Accepted++
	case channel.TryFailed:
		ep.Failed++
	}
	if ep.Statuses == nil {
		ep.Statuses = map[string]int{}
	}
	ep.Statuses[statusKey(req.Status)]++
	r.latency[ep] += req.Latency
	ep.AvgResponseMS = float64(r.latency[ep].Microseconds()) / 1000 / float64(ep.Requests+ep.Retries)
	// Statistics are best effort: a failure to count one request must not stop delivery.
	_ = r.state.RecordRequests(r.ctx, r.site, r.now(), []channel.Request{req})
	if r.onRequest != nil {
		r.onRequest(r.site, req)
	}
}

func (r *recorder) Finished(o channel.Outcome) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dryRun {
		r.count(o)
		return nil
	}
	if err := r.state.RecordOutcome(r.ctx, r.site, r.now(), o); err != nil {
		r.rec.AddError(err.Error())
		return err
	}
	r.count(o)
	r.announced(o)
	if r.onChange != nil {
		r.onChange()
	}
	return nil
}

// count adds an outcome to the record's counters, and its URLs to those answered.
func (r *recorder) count(o channel.Outcome) {
	r.answers.answer(o)
	r.urls.add(r.rec, o)
	ch := r.rec.Channels[o.Channel]
	switch {
	case o.Ineligible():
		ch.Ineligible += len(o.URLs)
		if ch.IneligibleBy == nil {
			ch.IneligibleBy = map[string]int{}
		}
		ch.IneligibleBy[o.Preflight.Reason] += len(o.URLs)
	case o.Unsent == model.UnsentBaseline:
		ch.Baseline += len(o.URLs)
		ch.Due -= len(o.URLs)
	case o.Unsent != "":
		ch.Backlog += len(o.URLs)
		ch.Due -= len(o.URLs)
	case o.Delivered:
		ch.Submitted += len(o.URLs)
	default:
		ch.Failed += len(o.URLs)
		r.rec.AddError(o.Channel + ": " + o.Err)
	}
}

func (r *recorder) HeldBack(channel string, n int, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec.Channels[channel].Held += n
	r.rec.AddNote(channel + ": " + why + ": " + r.heldNext(n))
}

// heldNext says what becomes of n URLs a quota held back, once it is back: those of a run of the
// sitemaps stay due, and the first run after sends them (unless the state keeps nothing);
// chosen URLs are kept for no run, and are submitted again, while a run of the sitemaps sends
// those of them it finds due.
func (r *recorder) heldNext(n int) string {
	switch {
	case r.chosen:
		return human.Count(n, "chosen URL") + " held back, and kept for no run: submit again after that " +
			"(a run of the sitemaps sends those of them it finds due: new, changed or failed)"
	case r.dryRun:
		return r.later.Held(human.Count(n, "due URL") + " would be held back")
	}
	return r.later.Held(human.Count(n, "due URL") + " held back")
}

func (r *recorder) Failed(channel, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec.AddError(channel + ": " + msg)
}

func (r *recorder) Noted(channel, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec.AddNote(channel + ": " + msg)
}

func (r *recorder) Later() model.Later { return r.later }

func (r *recorder) Waiting(channel, cause string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.waits[channel]
	if w == nil {
		w = &waits{}
		r.waits[channel] = w
	}
	w.add(r.now(), cause, d)
	if r.onWait != nil {
		r.onWait(r.site, channel, cause, d)
	}
}

// endWaits records, once a channel's delivery is over, how long it waited for engines that
// asked it to: its throttled time, and a note per cause.
func (r *recorder) endWaits(channel string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.waits[channel]
	if w == nil {
		return
	}
	w.end(r.now())
	r.rec.Channels[channel].ThrottledMS = w.all.total.Milliseconds()
	for _, c := range w.causes {
		r.rec.AddNote(fmt.Sprintf("%s: %s", channel, c))
	}
}

// statusKey is how an answer's status is counted: its HTTP status, or "none".
func statusKey(status int) string {
	if status == 0 {
		return "none"
	}
	return strconv.Itoa(status)
}

// announced records what became of the removal notices an outcome answers: the probe that found
// each URL gone, so that it is not probed again, and the notices the channel accepted. A notice no
// outcome answers — the run stopped first — leaves its URL to be probed and announced by a later run.
func (r *recorder) announced(o channel.Outcome) {
	if len(r.removals.status) == 0 || o.Channel != r.removals.channel {
		return
	}
	var hashes []int64
	for _, d := range o.URLs {
		if _, ok := r.removals.status[d.Hash]; ok {
			hashes = append(hashes, d.Hash)
		}
	}
	for _, h := range hashes {
		if err := r.state.RecordProbe(r.ctx, r.site, h, r.removals.status[h], r.now()); err != nil {
			r.rec.AddError(o.Channel + ": " + err.Error())
			return
		}
	}
	if log, ok := r.state.(RemovalLog); ok && o.Delivered {
		if err := log.RecordAnnounced(r.ctx, r.site, hashes, r.now()); err != nil {
			r.rec.AddError(o.Channel + ": " + err.Error())
		}
	}
}
