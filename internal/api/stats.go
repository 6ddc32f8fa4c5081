package api

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// MaxDays is how far back statistics go: they are kept 90 days.
const MaxDays = 90

// Daily is the answer of GET /api/stats/daily.
type Daily struct {
	Days  int              `json:"days"`
	Site  string           `json:"site,omitempty"`
	Daily []map[string]any `json:"daily"`
}

// DailyStats counts, per UTC day from days-1 days before today to today, oldest first, each
// channel's URLs: of one site, or of every site when site is "". Every day is there, and every
// channel in it.
func DailyStats(ctx context.Context, st State, days int, site string, today time.Time) (*Daily, error) {
	today = today.UTC().Truncate(24 * time.Hour)
	since := today.AddDate(0, 0, -(days - 1))
	rows, err := st.ChannelDays(ctx, since, site)
	if err != nil {
		return nil, err
	}
	out := &Daily{Days: days, Site: site}
	index := map[string]map[string]any{}
	for d := range days {
		date := since.AddDate(0, 0, d).Format(time.DateOnly)
		day := map[string]any{"date": date}
		for _, ch := range config.Channels {
			day[ch] = DayCounts{}
		}
		index[date] = day
		out.Daily = append(out.Daily, day)
	}
	for _, row := range rows {
		if day, ok := index[row.Day]; ok {
			day[row.Channel] = DayCounts{row.Total, row.Successful, row.Failed}
		}
	}
	return out, nil
}
