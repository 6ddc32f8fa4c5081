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

// SaveRun stores an execution record. A record without an ID is a run starting: its start is
// noted, and rec.ID set to its new id. A record with an ID is a run finished: it is kept whole.
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

// startRun notes the start of a run and returns its id. A run still noted as going died before
// it finished (a killed invocation): it is recorded as failed. The start is written at once, so
// that a tick after a killed invocation sees the site ran.
func (s *State) startRun(ctx context.Context, site string, now time.Time) (_ int64, err error) {
	defer failed(&err, "recording the start of a run", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	m, err := s.metaOf(ctx, st)
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
	}
	m.NextID++
	m.Running, m.LastStarted, m.dirty = m.NextID, now.UnixMilli(), true
	return m.Running, s.writeMeta(ctx, st)
}

// finishRun keeps a finished record and writes everything the run changed: its catalogue, its
// statistics, its feed, its Bing quota. A run that stopped before its end is resumed at the
// next tick.
func (s *State) finishRun(ctx context.Context, rec *model.Record) (err error) {
	defer failed(&err, "recording the end of a run", rec.Site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(rec.Site)
	m, err := s.metaOf(ctx, st)
	if err != nil {
		return err
	}
	l, err := s.runsOf(ctx, st)
	if err != nil {
		return err
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
// killed) first, with its start only.
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
	var out []model.Record
	if m.Running != 0 {
		out = append(out, model.Record{ID: m.Running, Site: site, StartedAt: fromMS(m.LastStarted), Status: model.StatusRunning,
			Channels: map[string]*model.ChannelStats{}, Errors: []string{}})
	}
	out = append(out, l.records...)
	return out[:min(limit, len(out))], nil
}
