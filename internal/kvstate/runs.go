package kvstate

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// keepRuns is how many execution records a site keeps: `runs:{id}`, newest first.
const keepRuns = 100

// interrupted is the error of a run whose invocation died before it finished.
const interrupted = "interrupted: the invocation running it stopped before it finished; what it delivered by then may be sent again"

// runList is a site's execution records, read once.
type runList struct {
	records []model.Record
	dirty   bool
}

func runsKey(site string) string { return "runs:" + site }

// runsOf returns a site's records; s.mu is held.
func (s *State) runsOf(ctx context.Context, st *site) (*runList, error) {
	if st.runs != nil {
		return st.runs, nil
	}
	// The history only tells what runs did: without it the site runs on.
	l := &runList{}
	if _, err := s.getOrDrop(ctx, runsKey(st.id), &l.records, "the site's history of runs starts again with its next run"); err != nil {
		return nil, err
	}
	st.runs = l
	return l, nil
}

// writeRuns writes a site's records when they changed; s.mu is held.
func (s *State) writeRuns(ctx context.Context, st *site) error {
	if st.runs == nil || !st.runs.dirty {
		return nil
	}
	if err := s.putJSON(ctx, runsKey(st.id), st.runs.records, 0); err != nil {
		return err
	}
	st.runs.dirty = false
	return nil
}

// add keeps a finished record, newest first, the newest keepRuns.
func (l *runList) add(rec model.Record) {
	l.records = append([]model.Record{rec}, l.records...)
	if len(l.records) > keepRuns {
		l.records = l.records[:keepRuns]
	}
	l.dirty = true
}

// runStart is a run this invocation started, whose start is not written yet: it is written, with
// the site's lease, once the run has work (Working) — so that a tick after a killed invocation
// sees the site ran, and records the run as interrupted — or at the run's end, with what it did,
// when it did something. A run that found nothing to do (quiet) writes neither.
type runStart struct {
	id, at int64 // at: Unix ms
	begun  bool  // its lease and start are written
}

// SaveRun stores an execution record. A record without an ID is a run starting: rec.ID is set to
// its new id. A record with an ID is a run finished: it is kept whole, or, when the run found
// nothing to do, kept as the site's quiet run in the schedule (see finishRun).
func (s *State) SaveRun(ctx context.Context, rec *model.Record) error {
	if rec.ID != 0 {
		return s.finishRun(ctx, rec)
	}
	id, err := s.startRun(ctx, rec.Site, rec.StartedAt)
	if err == nil {
		rec.ID = id
	}
	return err
}

// startRun notes the start of a run, in memory, and returns its id. A run still noted as going
// died before it finished (a killed invocation): it is recorded as failed.
func (s *State) startRun(ctx context.Context, site string, now time.Time) (_ int64, err error) {
	defer failed(&err, "recording the start of a run", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	m, err := s.metaOf(ctx, st)
	if err != nil {
		return 0, err
	}
	quiet, err := s.quietOf(ctx, site)
	if err != nil {
		return 0, err
	}
	if m.Running != 0 {
		l, err := s.runsOf(ctx, st)
		if err != nil {
			return 0, err
		}
		l.add(model.Record{ID: m.Running, Site: site, StartedAt: fromMS(m.LastStarted), FinishedAt: now,
			Status: model.StatusFailed, Channels: map[string]*model.ChannelStats{}, Errors: []string{interrupted}})
		m.Running, m.dirty = 0, true
	}
	id := m.NextID
	if quiet != nil {
		id = max(id, quiet.ID) // a quiet run's id is not written in the meta
	}
	st.run = &runStart{id: id + 1, at: now.UnixMilli()}
	return st.run.id, nil
}

// Working writes the lease and the start of site's run, when they are not written yet: the runner
// calls it before the run sends anything (runner.LazyLease). A run that took the site since the
// lease was read holds it: the error is a *model.LeaseHeld, and this run sends nothing.
func (s *State) Working(ctx context.Context, site string) (err error) {
	defer failed(&err, "starting the run's work", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	if st.run == nil || st.run.begun {
		return nil
	}
	if err := s.writeLease(ctx, site); err != nil {
		return err
	}
	if err := s.begin(ctx, st, st.run); err != nil {
		return err
	}
	return s.writeMeta(ctx, st)
}

// begin notes the start of run, a run of the site, in the site's meta; s.mu is held.
func (s *State) begin(ctx context.Context, st *site, run *runStart) error {
	m, err := s.metaOf(ctx, st)
	if err != nil {
		return err
	}
	m.NextID, m.Running, m.LastStarted, m.dirty = max(m.NextID, run.id), run.id, run.at, true
	run.begun = true
	return nil
}

// finishRun keeps a finished record and writes everything the run changed: its catalogue, its
// statistics, its feed, its Bing quota, its record; the lease first, when the run wrote none yet
// and changed what the site holds. A run that stopped before its end is resumed at the next tick.
// A run that found nothing to do — it wrote nothing (no Working), changed nothing, and ended ok
// — is quiet: it is kept as the site's latest run in the schedule, written at Flush, and goes
// into the site's history when a run that writes comes after it. The URLs the run names are not
// kept: every KV write costs, and the Worker shows no run's page (docs/cloudflare.md).
func (s *State) finishRun(ctx context.Context, rec *model.Record) (err error) {
	defer failed(&err, "recording the end of a run", rec.Site)
	unnamed := *rec
	unnamed.URLs = nil
	rec = &unnamed
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(rec.Site)
	m, err := s.metaOf(ctx, st)
	if err != nil {
		return err
	}
	run := st.run
	st.run = nil
	if run != nil && run.id != rec.ID {
		run = nil
	}
	quietRun := rec.Status == model.StatusOK && len(rec.Errors) == 0 && !rec.Stopped && rec.Stalled == 0
	if run != nil && !run.begun && quietRun && !m.Resume && !m.dirty && !st.holdsChanges() && (st.runs == nil || !st.runs.dirty) {
		kept := *rec
		return s.setQuiet(ctx, rec.Site, &kept)
	}
	if run != nil && !run.begun {
		if st.holdsChanges() {
			if err := s.writeLease(ctx, rec.Site); err != nil {
				s.discard(st) // the site's holder writes what it does
				return err
			}
		}
		if err := s.begin(ctx, st, run); err != nil {
			return err
		}
	}
	l, err := s.runsOf(ctx, st)
	if err != nil {
		return err
	}
	quiet, err := s.quietOf(ctx, rec.Site)
	if err != nil {
		return err
	}
	if quiet != nil {
		if len(l.records) == 0 || quiet.StartedAt.After(l.records[0].StartedAt) {
			l.add(*quiet)
		}
		if err := s.setQuiet(ctx, rec.Site, nil); err != nil {
			return err
		}
	}
	l.add(*rec)
	if m.Running == rec.ID {
		m.Running = 0
	}
	// A run that got nowhere (Stalled) would get nowhere again at once: its site waits for its
	// schedule.
	m.Resume, m.dirty = rec.Stopped && rec.Stalled == 0, true
	return s.flushSite(ctx, st)
}

// Runs returns site's execution records, newest first, at most limit: a run still going (or
// killed) first, with its start only; then the site's quiet run, when it is the latest.
func (s *State) Runs(ctx context.Context, site string, limit int) (_ []model.Record, err error) {
	defer failed(&err, "reading runs", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	m, err := s.metaOf(ctx, st)
	if err != nil {
		return nil, err
	}
	l, err := s.runsOf(ctx, st)
	if err != nil {
		return nil, err
	}
	quiet, err := s.quietOf(ctx, site)
	if err != nil {
		return nil, err
	}
	var out []model.Record
	running, started := m.Running, m.LastStarted
	if st.run != nil && !st.run.begun { // started in this invocation, not written yet
		running, started = st.run.id, st.run.at
	}
	if running != 0 {
		out = append(out, model.Record{ID: running, Site: site, StartedAt: fromMS(started), Status: model.StatusRunning,
			Channels: map[string]*model.ChannelStats{}, Errors: []string{}})
	}
	if quiet != nil && (len(l.records) == 0 || quiet.StartedAt.After(l.records[0].StartedAt)) {
		out = append(out, *quiet)
	}
	out = append(out, l.records...)
	return out[:min(limit, len(out))], nil
}
