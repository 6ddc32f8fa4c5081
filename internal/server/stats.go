package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/model"
)

// dailyStats answers, per UTC day from days-1 days ago to today, oldest first, each channel's
// total and successful URLs: of one site, or of every site.
func (s *Server) dailyStats(w http.ResponseWriter, r *http.Request) {
	days, ok := answer.IntParam(w, r, "days", 7, 1, answer.MaxDays)
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
	day := today.Format(time.DateOnly)
	key := fmt.Sprintf("stats:%d:%s:%s", days, site, day)
	v, err := s.cache.get(key, func() (any, error) {
		ctx, cancel := answer.Detached(r)
		defer cancel()
		past, err := s.pastDays(ctx, days, site, today)
		if err != nil {
			return nil, err
		}
		rows, err := s.state.ChannelDays(ctx, today.Truncate(24*time.Hour), site)
		if err != nil {
			return nil, err
		}
		return answer.Marshal(answer.DailyFrom(days, site, today, append(slices.Clip(past), rows...)))
	})
	s.answer(w, v, err)
}

// pastDays reads the statistics of the days of a window before today, which runs no longer
// change: once a day. Only today's are read again as the state changes.
func (s *Server) pastDays(ctx context.Context, days int, site string, today time.Time) ([]model.ChannelDay, error) {
	day := today.Format(time.DateOnly)
	v, err := s.cache.getFixed(fmt.Sprintf("past:%d:%s:%s", days, site, day), func() (any, error) {
		rows, err := s.state.ChannelDays(ctx, answer.Since(days, today), site)
		return slices.DeleteFunc(rows, func(d model.ChannelDay) bool { return d.Day >= day }), err
	})
	if err != nil {
		return nil, err
	}
	return v.([]model.ChannelDay), nil
}
