package runner

import (
	"context"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
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
	// onChange is called after every outcome, for progress reports.
	onChange func()
	// onRequest, when set, is told of every request.
	onRequest func(site string, r channel.Request)

	mu      sync.Mutex
	latency map[*model.EndpointStats]time.Duration
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
	ep.Requests++
	if req.Accepted {
		ep.Accepted++
	} else {
		ep.Failed++
	}
	r.latency[ep] += req.Latency
	ep.AvgResponseMS = float64(r.latency[ep].Microseconds()) / 1000 / float64(ep.Requests)
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
	if r.onChange != nil {
		r.onChange()
	}
	return nil
}

// count adds an outcome to the record's counters.
func (r *recorder) count(o channel.Outcome) {
	ch := r.rec.Channels[o.Channel]
	switch {
	case o.Skipped:
		ch.Skipped += len(o.URLs)
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
	r.rec.AddNote(channel + ": " + why)
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
