package server

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/sites"
)

// bingAsked is how long Bing's answer about a site's quota stands before Bing is asked again.
const bingAsked = 5 * time.Minute

// bingAnswer is what asking Bing of a site's quota came to: err says why Bing did not tell. A
// refusal is kept like an answer, so that a refused key is not asked about again every second.
type bingAnswer struct {
	err error
}

// askBing asks Bing what each site of all with Bing on may still submit today, at most every
// bingAsked per site, and keeps its answers in the state, where every face of sitepush counts
// with them (bing.Quota): /status, the dashboard, the metrics. A site whose run is going is not
// asked: Bing's answer would not count the batch on its way, which the state counts as used. It
// returns why Bing did not tell, by site, and whether an answer was kept now.
func (s *Server) askBing(all []sites.Entry, running func(id string) bool) (map[string]string, bool) {
	if s.bingQuota == nil {
		return nil, false
	}
	errs := map[string]string{}
	var kept atomic.Bool
	for _, e := range all {
		if !e.Site.Bing.Enabled || running(e.Site.ID) {
			continue
		}
		site := e.Site
		v, err := s.bing.get(site.ID, func() (any, error) { return s.askBingOf(site, &kept) })
		if err != nil {
			s.logger.Error("keeping what Bing said of a site's quota", "site", site.ID, "err", err)
			continue
		}
		if a := v.(bingAnswer); a.err != nil {
			errs[site.ID] = "Bing did not tell the quota left: " + a.err.Error()
		}
	}
	return errs, kept.Load()
}

// askBingOf asks Bing of one site's quota and keeps its answer in the state, then sets kept. It
// may run after the request that asked (the cache refreshes in the background): it has its own
// context. An error is the state's, and is not kept.
func (s *Server) askBingOf(site *config.Site, kept *atomic.Bool) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	left, err := s.bingQuota(ctx, site)
	if err != nil {
		return bingAnswer{err: err}, nil
	}
	if err := s.state.RecordBingLeft(ctx, site.ID, s.today(), left); err != nil {
		return nil, err
	}
	kept.Store(true)
	return bingAnswer{}, nil
}
