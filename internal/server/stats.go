package server

import (
	"fmt"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/api"
)

// dailyStats answers, per UTC day from days-1 days ago to today, oldest first, each channel's
// total and successful URLs: of one site, or of every site.
func (s *Server) dailyStats(w http.ResponseWriter, r *http.Request) {
	days, ok := api.IntParam(w, r, "days", 7, 1, api.MaxDays)
	if !ok {
		return
	}
	site := r.URL.Query().Get("site")
	if site != "" {
		e, ok := s.sites.Get(site)
		if !ok {
			s.noSite(w, site)
			return
		}
		site = e.Site.ID
	}
	today := s.now().UTC()
	key := fmt.Sprintf("stats:%d:%s:%s", days, site, today.Format(time.DateOnly))
	v, err := s.cache.get(key, func() (any, error) {
		ctx, cancel := api.Detached(r)
		defer cancel()
		out, err := api.DailyStats(ctx, s.state, days, site, today)
		if err != nil {
			return nil, err
		}
		return api.Marshal(out)
	})
	s.answer(w, v, err)
}
