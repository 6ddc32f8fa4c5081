package server

import (
	"fmt"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// maxDays is how far back statistics go: they are kept 90 days.
const maxDays = 90

// dailyStats answers, per UTC day from days-1 days ago to today, oldest first, each channel's
// total and successful URLs: of one site, or of every site.
func (s *Server) dailyStats(w http.ResponseWriter, r *http.Request) {
	days, ok := intParam(w, r, "days", 7, 1, maxDays)
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
	today := s.now().UTC().Truncate(24 * time.Hour)
	key := fmt.Sprintf("stats:%d:%s:%s", days, site, today.Format(time.DateOnly))
	v, err := s.cache.get(key, func() (any, error) {
		ctx, cancel := detached(r)
		defer cancel()
		since := today.AddDate(0, 0, -(days - 1))
		rows, err := s.state.ChannelDays(ctx, since, site)
		if err != nil {
			return nil, err
		}
		out := struct {
			Days  int              `json:"days"`
			Site  string           `json:"site,omitempty"`
			Daily []map[string]any `json:"daily"`
		}{Days: days, Site: site}
		index := map[string]map[string]any{}
		for d := range days {
			date := since.AddDate(0, 0, d).Format(time.DateOnly)
			day := map[string]any{"date": date}
			for _, ch := range config.Channels {
				day[ch] = dayCounts{}
			}
			index[date] = day
			out.Daily = append(out.Daily, day)
		}
		for _, row := range rows {
			if day, ok := index[row.Day]; ok {
				day[row.Channel] = dayCounts{row.Total, row.Successful, row.Failed}
			}
		}
		return marshal(out)
	})
	s.answer(w, v, err)
}
