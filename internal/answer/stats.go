package answer

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
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
	rows, err := st.ChannelDays(ctx, Since(days, today), site)
	if err != nil {
		return nil, err
	}
	return DailyFrom(days, site, today, rows), nil
}

// Since is the first of days days ending today.
func Since(days int, today time.Time) time.Time {
	return today.UTC().Truncate(24*time.Hour).AddDate(0, 0, -(days - 1))
}

// DailyFrom is DailyStats of rows read from the state: those of days before Since are left out.
func DailyFrom(days int, site string, today time.Time, rows []model.ChannelDay) *Daily {
	since := Since(days, today)
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
	return out
}
