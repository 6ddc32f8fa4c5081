package server

import (
	"context"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/api"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/sites"
)

// bingAsked is how long Bing's answer about a site's quota is kept.
const bingAsked = 5 * time.Minute

// bingAnswer is what Bing said of a site's quota; a refusal is kept like an answer, so that a
// refused key is not asked about again every second.
type bingAnswer struct {
	left int
	err  error
}

// bingSays asks Bing how many URLs site may still submit today, or returns its last answer.
func (s *Server) bingSays(ctx context.Context, site *config.Site) (int, error) {
	v, _ := s.bing.get(site.ID, func() (any, error) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		left, err := s.bingQuota(ctx, site)
		return bingAnswer{left, err}, nil
	})
	a := v.(bingAnswer)
	return a.left, a.err
}

// status answers one site's status, or every site's without ?site.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("site")
	if id == "" {
		all, err := s.statuses(r)
		if err != nil {
			s.answer(w, nil, err)
			return
		}
		api.WriteJSON(w, http.StatusOK, map[string][]*api.SiteStatus{"sites": all})
		return
	}
	e, ok := s.sites.Get(id)
	if !ok {
		s.noSite(w, id)
		return
	}
	// Every site's status is read at once, a few queries for all: a client polling each site
	// costs one read a second, not one per site.
	v, err := s.cache.get("status:"+e.Site.ID, func() (any, error) {
		all, err := s.statuses(r)
		if err != nil {
			return nil, err
		}
		for _, st := range all {
			if st.SiteID == e.Site.ID {
				return api.Marshal(st)
			}
		}
		ctx, cancel := api.Detached(r)
		defer cancel()
		st, err := s.siteStatus(ctx, e) // created since the statuses were read
		if err != nil {
			return nil, err
		}
		return api.Marshal(st)
	})
	s.answer(w, v, err)
}

// statuses returns every site's status, for GET /status and the dashboard: read for all sites
// at once.
func (s *Server) statuses(r *http.Request) ([]*api.SiteStatus, error) {
	v, err := s.cache.get("statuses", func() (any, error) {
		ctx, cancel := api.Detached(r)
		defer cancel()
		now := s.now()
		reads, err := s.state.SiteReads(ctx, now)
		if err != nil {
			return nil, err
		}
		out := []*api.SiteStatus{}
		for _, e := range s.sites.All() {
			out = append(out, api.FromReads(ctx, reads, e.Site, e.Source, now, s.live(e)))
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]*api.SiteStatus), nil
}

func (s *Server) siteStatus(ctx context.Context, e sites.Entry) (*api.SiteStatus, error) {
	return api.Status(ctx, s.state, e.Site, e.Source, s.now(), s.live(e))
}

// live is what this process knows of a site beyond the state: its run going here, and how to
// ask Bing what it leaves today.
func (s *Server) live(e sites.Entry) api.Live {
	live := api.Live{}
	if id, ok := s.runs.Active(e.Site.ID); ok {
		live.RunningID = id
	}
	if s.bingQuota != nil {
		live.BingLeft = func(ctx context.Context) (int, error) { return s.bingSays(ctx, e.Site) }
	}
	return live
}

// answer writes a cached JSON answer, or the error that kept it from being made.
func (s *Server) answer(w http.ResponseWriter, v any, err error) {
	if err != nil {
		s.logger.Error("answering a request", "err", err)
		api.WriteError(w, http.StatusServiceUnavailable, "the state could not be read: "+err.Error())
		return
	}
	api.WriteRaw(w, http.StatusOK, v.([]byte))
}

func (s *Server) noSite(w http.ResponseWriter, id string) {
	api.Errorf(w, http.StatusNotFound, "no site %q: GET /api/sites lists them", id)
}
