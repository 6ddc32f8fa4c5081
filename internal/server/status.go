package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sites"
)

// status answers one site's status, or every site's without ?site.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("site")
	set, err := s.statuses(r)
	if err != nil {
		s.answer(w, nil, err)
		return
	}
	if id == "" {
		s.statusPage(w, r, set.all)
		return
	}
	e, ok := s.sites.Get(id)
	if !ok {
		s.noSite(w, id)
		return
	}
	b, ok := set.json(e.Site.ID)
	if !ok { // created since the statuses were read
		ctx, cancel := answer.Detached(r)
		defer cancel()
		st, err := s.siteStatus(ctx, e)
		if err == nil {
			b, err = json.Marshal(st)
		}
		if err != nil {
			s.answer(w, nil, err)
			return
		}
	}
	s.answer(w, b, nil)
}

// statusPage answers a page of every site's status (paging.go): all of them while there are at
// most maxPage sites.
func (s *Server) statusPage(w http.ResponseWriter, r *http.Request, all []*answer.SiteStatus) {
	from, to, next, ok := pageOfSites(w, r, len(all), func(i int) pageKey { return pageKey{all[i].Source, all[i].SiteID} })
	if !ok {
		return
	}
	linkNext(w, r, next)
	answer.WriteJSON(w, http.StatusOK, struct {
		Sites      []*answer.SiteStatus `json:"sites"`
		NextCursor string               `json:"nextCursor,omitempty"`
	}{all[from:to], next})
}

// statusSet is every site's status, read at once — a few queries for all sites, so that a
// client polling each site costs one read, not one per site — and each one's JSON, made once.
type statusSet struct {
	all   []*answer.SiteStatus
	mu    sync.Mutex
	bytes map[string][]byte
}

// json returns a site's status in JSON; false when the site has none in the set.
func (set *statusSet) json(site string) ([]byte, bool) {
	set.mu.Lock()
	defer set.mu.Unlock()
	if b, ok := set.bytes[site]; ok {
		return b, true
	}
	for _, st := range set.all {
		if st.SiteID == site {
			b, err := json.Marshal(st)
			if err != nil {
				return nil, false
			}
			set.bytes[site] = b
			return b, true
		}
	}
	return nil, false
}

// statuses returns every site's status, for GET /status: read again when the state changed, the
// day ended or a site's scheduled run came.
func (s *Server) statuses(r *http.Request) (*statusSet, error) {
	v, err := s.cache.getUntil("statuses:"+s.today(), func() (any, time.Time, error) {
		ctx, cancel := answer.Detached(r)
		defer cancel()
		all, err := s.readStatuses(ctx)
		if err != nil {
			return nil, time.Time{}, err
		}
		return &statusSet{all: all, bytes: map[string][]byte{}}, nextRun(all), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*statusSet), nil
}

// readStatuses reads every site's status from the state, with what Bing says of the quotas of
// sites whose run is not going: asked after a first read (which tells whose run is going, in
// any process), kept in the state, and read again when an answer was kept.
func (s *Server) readStatuses(ctx context.Context) ([]*answer.SiteStatus, error) {
	now := s.now()
	reads, err := s.state.SiteReads(ctx, now)
	if err != nil {
		return nil, err
	}
	all := s.sites.All()
	bingErrs, kept := s.askBing(all, func(id string) bool {
		_, here := s.runs.Active(id)
		return here || reads.Leased[id]
	})
	if kept {
		if reads, err = s.state.SiteReads(ctx, now); err != nil {
			return nil, err
		}
	}
	out := []*answer.SiteStatus{}
	for _, e := range all {
		st := answer.FromReads(reads, e.Site, e.Source, now, s.live(e))
		st.Bing.Error = bingErrs[e.Site.ID]
		out = append(out, st)
	}
	return out, nil
}

// today is the UTC day, in the keys of answers that hold the day's figures.
func (s *Server) today() string {
	return s.now().UTC().Format(time.DateOnly)
}

// nextRun is when statuses change by themselves: the first of their sites' next scheduled runs;
// zero for none.
func nextRun(all []*answer.SiteStatus) time.Time {
	var first time.Time
	for _, st := range all {
		if !st.NextRun.IsZero() && (first.IsZero() || st.NextRun.Before(first)) {
			first = st.NextRun
		}
	}
	return first
}

// siteStatus reads one site's status from the state, with what Bing says of its quota when its
// run is not going, as readStatuses does.
func (s *Server) siteStatus(ctx context.Context, e sites.Entry) (*answer.SiteStatus, error) {
	st, err := answer.Status(ctx, s.state, e.Site, e.Source, s.now(), s.live(e))
	if err != nil {
		return nil, err
	}
	bingErrs, kept := s.askBing([]sites.Entry{e}, func(string) bool { return st.Status == model.StatusRunning })
	if kept {
		if st, err = answer.Status(ctx, s.state, e.Site, e.Source, s.now(), s.live(e)); err != nil {
			return nil, err
		}
	}
	st.Bing.Error = bingErrs[e.Site.ID]
	return st, nil
}

// live is what this process knows of a site beyond the state: its run going here.
func (s *Server) live(e sites.Entry) answer.Live {
	live := answer.Live{}
	if id, ok := s.runs.Active(e.Site.ID); ok {
		live.RunningID = id
	}
	return live
}

// answer writes a cached JSON answer, or the error that kept it from being made.
func (s *Server) answer(w http.ResponseWriter, v any, err error) {
	if err != nil {
		s.logger.Error("answering a request", "err", err)
		answer.WriteError(w, http.StatusServiceUnavailable, "the state could not be read: "+err.Error())
		return
	}
	answer.WriteRaw(w, http.StatusOK, v.([]byte))
}

func (s *Server) noSite(w http.ResponseWriter, id string) {
	answer.Errorf(w, http.StatusNotFound, "no site %q: GET /api/sites lists them", id)
}
