package server

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// Live keeps what the runs going have done so far — their records as the runner updates them,
// and the waits engines asked for — so that a run's page shows them while the state holds only
// the run's start. Its Progress and Wait are the runner's hooks (runner.Runner.Progress, OnWait).
type Live struct {
	mu    sync.Mutex
	runs  map[string]*liveRun // by site: one run of a site goes at a time
	clock func() time.Time
}

// liveRun is a run going: a copy of its record, and the waits of its channels.
type liveRun struct {
	rec   model.Record
	waits map[string]Wait // by channel
}

// Wait is a wait an engine asked a channel of a run going for: its cause, and until when.
type Wait struct {
	Channel, Cause string
	Until          time.Time
}

// NewLive returns an empty Live on the wall clock.
func NewLive() *Live { return &Live{runs: map[string]*liveRun{}, clock: time.Now} }

// Progress keeps a copy of a run's record as it goes; a record that finished is dropped.
func (l *Live) Progress(rec *model.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !rec.FinishedAt.IsZero() {
		delete(l.runs, rec.Site)
		return
	}
	run := l.runs[rec.Site]
	if run == nil || run.rec.ID != rec.ID {
		run = &liveRun{waits: map[string]Wait{}}
		l.runs[rec.Site] = run
	}
	run.rec = *rec
	run.rec.Channels = make(map[string]*model.ChannelStats, len(rec.Channels))
	for name, cs := range rec.Channels {
		c := *cs
		c.Endpoints = make(map[string]*model.EndpointStats, len(cs.Endpoints))
		for u, ep := range cs.Endpoints {
			e := *ep
			e.Statuses = maps.Clone(ep.Statuses)
			c.Endpoints[u] = &e
		}
		c.IneligibleBy = maps.Clone(cs.IneligibleBy)
		run.rec.Channels[name] = &c
	}
	run.rec.Errors, run.rec.Notes = slices.Clone(rec.Errors), slices.Clone(rec.Notes)
}

// Wait keeps the wait an engine asked a channel of site's run going for, from now on for d.
func (l *Live) Wait(site, channel, cause string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if run := l.runs[site]; run != nil {
		run.waits[channel] = Wait{Channel: channel, Cause: cause, Until: l.clock().Add(d)}
	}
}

// Of returns the record so far of site's run id while it goes, and the waits not over yet, by
// channel; ok is false when the run is not going here.
func (l *Live) Of(site string, id int64) (rec model.Record, waits []Wait, ok bool) {
	if l == nil {
		return model.Record{}, nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	run := l.runs[site]
	if run == nil || run.rec.ID != id {
		return model.Record{}, nil, false
	}
	now := l.clock()
	for _, name := range slices.Sorted(maps.Keys(run.waits)) {
		if w := run.waits[name]; w.Until.After(now) {
			waits = append(waits, w)
		}
	}
	return run.rec, waits, true
}
