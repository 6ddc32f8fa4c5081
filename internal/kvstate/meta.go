package kvstate

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// meta is what a site's runs need at every tick, small enough to read for every site every tick:
// `site:{id}`.
type meta struct {
	// LastStarted is when the latest run started (Unix ms): a site's schedule fires when its next
	// time after it has come.
	LastStarted int64 `json:"lastStarted,omitempty"`
	// Running is the id of a run that started and has not finished (or was killed).
	Running int64 `json:"running,omitempty"`
	// NextID numbers the runs.
	NextID int64 `json:"nextId"`
	// Resume is set when the last run stopped before its end (its budget, the invocation's), having
	// got somewhere: the next tick runs the site again, whatever its schedule.
	Resume bool `json:"resume,omitempty"`
	// LastSuccess is, by channel, when a URL was last accepted (Unix ms).
	LastSuccess map[string]int64 `json:"lastSuccess,omitempty"`
	// Left counts the URLs that left every sitemap and wait to be probed (`left:{id}`): none
	// spares a run reading them.
	Left int `json:"left,omitempty"`
	// Rotation is set while pages of the site may be in the rotation of content checks
	// (checks.go): without it, PagesToCheck reads nothing.
	Rotation bool `json:"rotation,omitempty"`

	dirty bool
}

func metaKey(site string) string { return "site:" + site }

// metaOf returns a site's meta, read once; s.mu is held.
func (s *State) metaOf(ctx context.Context, st *site) (*meta, error) {
	if st.meta != nil {
		return st.meta, nil
	}
	m := &meta{}
	ok, err := s.getJSON(ctx, metaKey(st.id), m)
	if errors.Is(err, errNotOurs) {
		return s.rebuildMeta(ctx, st, err)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		m = &meta{}
	}
	st.meta = m
	return m, nil
}

// rebuildMeta makes a site's meta again from its history of runs, when the one kept does not
// decode: the latest run's start and the run ids go on from there; whether to resume and when
// each channel last succeeded are lost, and come back with the next runs. s.mu is held.
func (s *State) rebuildMeta(ctx context.Context, st *site, why error) (*meta, error) {
	l, err := s.runsOf(ctx, st)
	if err != nil {
		return nil, err
	}
	m := &meta{dirty: true, Rotation: true} // PagesToCheck finds out whether the rotation holds pages
	for _, rec := range l.records {
		m.NextID = max(m.NextID, rec.ID)
		m.LastStarted = max(m.LastStarted, ms(rec.StartedAt))
	}
	last := "none"
	if m.LastStarted != 0 {
		last = "the last started " + fromMS(m.LastStarted).Format(time.RFC3339)
	}
	s.warn(fmt.Sprintf("%v: made again from the site's history of runs (%s)", why, last))
	st.meta = m
	return m, nil
}

// writeMeta writes a site's meta when it changed; s.mu is held.
func (s *State) writeMeta(ctx context.Context, st *site) error {
	if st.meta == nil || !st.meta.dirty {
		return nil
	}
	if err := s.putJSON(ctx, metaKey(st.id), st.meta, 0); err != nil {
		return err
	}
	st.meta.dirty = false
	return nil
}

// LastStarted returns when site's latest run started — its quiet run, when that is the latest;
// zero when it never ran.
func (s *State) LastStarted(ctx context.Context, site string) (_ time.Time, err error) {
	defer failed(&err, "reading the last run", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.metaOf(ctx, s.siteOf(site))
	if err != nil {
		return time.Time{}, err
	}
	last := fromMS(m.LastStarted)
	if quiet, err := s.quietOf(ctx, site); err != nil {
		return time.Time{}, err
	} else if quiet != nil && quiet.StartedAt.After(last) {
		last = quiet.StartedAt
	}
	return last, nil
}

// Resume reports whether site's last run stopped before its end, and must go on whatever its
// schedule says.
func (s *State) Resume(ctx context.Context, site string) (_ bool, err error) {
	defer failed(&err, "reading the last run", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.metaOf(ctx, s.siteOf(site))
	if err != nil {
		return false, err
	}
	return m.Resume, nil
}

// LastSuccess returns when channel last accepted a URL of site; zero when it never did.
func (s *State) LastSuccess(ctx context.Context, site, channel string) (_ time.Time, err error) {
	defer failed(&err, "reading the last accepted submission", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.metaOf(ctx, s.siteOf(site))
	if err != nil {
		return time.Time{}, err
	}
	return fromMS(m.LastSuccess[channel]), nil
}

// ms converts a time to Unix milliseconds, the zero time to 0.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMS converts Unix milliseconds back; 0 is the zero time.
func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}
