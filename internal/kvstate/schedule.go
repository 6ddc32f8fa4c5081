package kvstate

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// ScheduleKey is the value the Worker's JavaScript reads at every tick and at /healthz, so that
// neither starts Go when no site is due (docs/cloudflare.md). It holds, under the vars it was
// planned with (Env), when each site is next due, and each site's latest run when that run found
// nothing to do (a quiet run, which writes nothing else). It is a plan, not the state: one lost
// or out of date costs a site a run more, never a URL.
const ScheduleKey = "schedule"

// scheduleValue is the JSON of ScheduleKey; the Worker's JavaScript reads env and each site's next.
type scheduleValue struct {
	// Env is what the plan was made under (worker.Env.Fingerprint): the build and the vars. A plan
	// under other vars says nothing of when a site is due.
	Env   string                   `json:"env"`
	Sites map[string]*scheduleSite `json:"sites"`
}

// scheduleSite is one site's part of the schedule.
type scheduleSite struct {
	// Next is when the site is next due (Unix ms; 0: at the next tick), null when no schedule
	// makes it due.
	Next *int64 `json:"next"`
	// Quiet is the site's latest run when it found nothing to do: not kept in `runs:{id}` until a
	// run that writes comes after it.
	Quiet *model.Record `json:"quiet,omitempty"`
}

// schedule is what the State holds of ScheduleKey: the value as read, and what the invocation
// changed of it.
type schedule struct {
	v     scheduleValue
	next  map[string]bool // the sites whose next time the invocation planned
	quiet map[string]bool // the sites whose quiet run the invocation set
	whole bool            // the invocation planned every site, under v.Env
}

// scheduleOf returns the schedule, read once; s.mu is held. One that does not decode is taken
// as none: the Worker plans every site again.
func (s *State) scheduleOf(ctx context.Context) (*schedule, error) {
	if s.sched != nil {
		return s.sched, nil
	}
	sc := &schedule{next: map[string]bool{}, quiet: map[string]bool{}}
	if _, err := s.getOrDrop(ctx, ScheduleKey, &sc.v, "every site's schedule is read again at the next tick"); err != nil {
		return nil, err
	}
	if sc.v.Sites == nil {
		sc.v.Sites = map[string]*scheduleSite{}
	}
	s.sched = sc
	return sc, nil
}

// quietOf returns site's latest quiet run, nil when the schedule holds none; s.mu is held.
func (s *State) quietOf(ctx context.Context, site string) (*model.Record, error) {
	sc, err := s.scheduleOf(ctx)
	if err != nil {
		return nil, err
	}
	if p := sc.v.Sites[site]; p != nil {
		return p.Quiet, nil
	}
	return nil, nil
}

// setQuiet keeps (or, with nil, drops) site's latest quiet run in the schedule; s.mu is held.
func (s *State) setQuiet(ctx context.Context, site string, rec *model.Record) error {
	sc, err := s.scheduleOf(ctx)
	if err != nil {
		return err
	}
	p := sc.v.Sites[site]
	if p == nil {
		if rec == nil {
			return nil
		}
		p = &scheduleSite{}
		sc.v.Sites[site] = p
	}
	p.Quiet, sc.quiet[site] = rec, true
	return nil
}

// Due is when a site is next due, as the schedule says: At, or never when Never.
type Due struct {
	At    time.Time
	Never bool
}

// Planned returns when each site is next due under env, as the schedule says; nil when it was
// made under other vars (or never): then it says nothing.
func (s *State) Planned(ctx context.Context, env string) (_ map[string]Due, err error) {
	defer failed(&err, "reading the schedule", "")
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, err := s.scheduleOf(ctx)
	if err != nil || env == "" || sc.v.Env != env {
		return nil, err
	}
	out := make(map[string]Due, len(sc.v.Sites))
	for id, p := range sc.v.Sites {
		if p.Next == nil {
			out[id] = Due{Never: true}
		} else {
			out[id] = Due{At: fromMS(*p.Next)}
		}
	}
	return out, nil
}

// Plan sets when sites are next due. With whole, due holds every site, planned under env: the
// schedule is made of them alone (the parts of other sites dropped); else due holds some sites,
// and the schedule stays under the env it was made with. What changes it is written at Flush.
func (s *State) Plan(ctx context.Context, env string, due map[string]Due, whole bool) (err error) {
	defer failed(&err, "planning the schedule", "")
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, err := s.scheduleOf(ctx)
	if err != nil {
		return err
	}
	if whole {
		sc.whole = sc.whole || sc.v.Env != env
		sc.v.Env = env
		for id := range sc.v.Sites {
			if _, ok := due[id]; !ok {
				delete(sc.v.Sites, id)
				sc.whole = true
			}
		}
	}
	for id, d := range due {
		var next *int64
		if !d.Never {
			at := ms(d.At)
			next = &at
		}
		p := sc.v.Sites[id]
		if p == nil {
			p = &scheduleSite{}
			sc.v.Sites[id] = p
		} else if (p.Next == nil) == (next == nil) && (next == nil || *p.Next == *next) {
			continue
		}
		p.Next, sc.next[id] = next, true
	}
	return nil
}

// writeSchedule writes what the invocation changed of the schedule over what is there now (runs
// of other sites may have written since it was read), when that changes it; s.mu is held.
func (s *State) writeSchedule(ctx context.Context) error {
	sc := s.sched
	if sc == nil || len(sc.next) == 0 && len(sc.quiet) == 0 && !sc.whole {
		return nil
	}
	old, ok, err := s.get(ctx, ScheduleKey)
	if err != nil {
		return err
	}
	var now scheduleValue
	if !ok || json.Unmarshal(old, &now) != nil || now.Sites == nil {
		now = scheduleValue{Sites: map[string]*scheduleSite{}}
	}
	if sc.whole {
		now.Env = sc.v.Env
		for id := range now.Sites {
			if sc.v.Sites[id] == nil {
				delete(now.Sites, id)
			}
		}
	}
	for id, p := range sc.v.Sites {
		if !sc.next[id] && !sc.quiet[id] {
			continue
		}
		q := now.Sites[id]
		if q == nil {
			q = &scheduleSite{}
			now.Sites[id] = q
		}
		if sc.next[id] {
			q.Next = p.Next
		}
		if sc.quiet[id] {
			q.Quiet = p.Quiet
		}
	}
	b, err := json.Marshal(now)
	if err != nil {
		return err
	}
	if !ok || !bytes.Equal(b, old) {
		if err := s.put(ctx, ScheduleKey, b, 0, ""); err != nil {
			return err
		}
	}
	sc.v, sc.next, sc.quiet, sc.whole = now, map[string]bool{}, map[string]bool{}, false
	return nil
}
