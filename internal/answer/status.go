package answer

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// State is what the API reads of a state: the SQL store, the Worker's KV state.
type State interface {
	Runs(ctx context.Context, site string, limit int) ([]model.Record, error)
	Leased(ctx context.Context, site string, now time.Time) (bool, error)
	ChannelDays(ctx context.Context, since time.Time, site string) ([]model.ChannelDay, error)
	LastSuccess(ctx context.Context, site, channel string) (time.Time, error)
	QuotaDay(ctx context.Context, site, day string) (model.BingDay, error)
	FeedState(ctx context.Context, site string) (built bool, changed time.Time, err error)
	FeedItems(ctx context.Context, site string, limit int) ([]model.FeedItem, error)
}

// SiteStatus is the answer of GET /status?site=ID.
type SiteStatus struct {
	SiteID string `json:"siteId"`
	Source string `json:"source"`
	// Status is "running" while a run of the site holds its lease, in this instance or another.
	Status        string                    `json:"status"`
	RunningRunID  int64                     `json:"runningRunId,omitempty"`
	Schedule      string                    `json:"schedule"`
	NextRun       time.Time                 `json:"nextRun"`
	LastExecution *model.Record             `json:"lastExecution"`
	Channels      map[string]*ChannelStatus `json:"channels"`
	Bing          BingStatus                `json:"bing"`
	// Error says why the site's state could not be read, in an answer about every site: the
	// others are told as usual.
	Error string `json:"error,omitempty"`
}

// ChannelStatus is a channel's part of a site's status.
type ChannelStatus struct {
	Enabled bool `json:"enabled"`
	// Today counts the URLs whose delivery ended today (UTC).
	Today          DayCounts  `json:"today"`
	LastSubmission *time.Time `json:"lastSubmission"`
	// Path is where the feed is served (the feed channel only).
	Path string `json:"path,omitempty"`
}

// DayCounts are a channel's URLs of a day.
type DayCounts struct {
	Total      int `json:"total"`
	Successful int `json:"successful"`
	Failed     int `json:"failed"`
}

// BingStatus is the Bing block of the original design, with the quota of today (UTC).
type BingStatus struct {
	Enabled        bool `json:"enabled"`
	DailyQuota     int  `json:"dailyQuota,omitempty"`
	TodayQuotaUsed *int `json:"todayQuotaUsed,omitempty"`
	// TodayQuotaRemaining is bing.Quota.Left, the one rule; TodayQuotaSource says where it comes
	// from: "Bing's grant of 50", "your bing.dailyQuota of 100" (bing.Quota.Source).
	TodayQuotaRemaining *int       `json:"todayQuotaRemaining,omitempty"`
	TodayQuotaSource    string     `json:"todayQuotaSource,omitempty"`
	LastSubmission      *time.Time `json:"lastSubmission,omitempty"`
	// BingRemaining is what Bing's latest answer of today leaves, less what went since; absent
	// when Bing was not asked today. Error says why Bing did not tell when serve asked it (a key
	// it refuses); the Worker does not ask Bing for a status.
	BingRemaining *int   `json:"bingRemaining,omitempty"`
	Error         string `json:"error,omitempty"`
	// Quota is the day's quota these numbers come from, for a page that words its source
	// itself (the dashboard); the JSON has its numbers.
	Quota bing.Quota `json:"-"`
}

// Live is what the process answering knows of a site beyond its state.
type Live struct {
	// RunningID is the id of a run of the site this process is making, 0 when none.
	RunningID int64
}

// Status builds a site's status at now from its state; source says where the site comes from.
func Status(ctx context.Context, st State, site *config.Site, source string, now time.Time, live Live) (*SiteStatus, error) {
	reads, err := readSite(ctx, st, site, now.UTC())
	if err != nil {
		return nil, err
	}
	return FromReads(reads, site, source, now, live), nil
}

// readSite reads what a site's status needs, with a few queries of the site.
func readSite(ctx context.Context, st State, site *config.Site, now time.Time) (*model.SiteReads, error) {
	id := site.ID
	r := &model.SiteReads{Leased: map[string]bool{}, LastRun: map[string]*model.Record{}, Today: map[string]map[string]model.ChannelDay{id: {}},
		LastSuccess: map[string]map[string]time.Time{id: {}}, Bing: map[string]model.BingDay{}}
	leased, err := st.Leased(ctx, id, now)
	if err != nil {
		return nil, err
	}
	r.Leased[id] = leased
	runs, err := st.Runs(ctx, id, 1)
	if err != nil {
		return nil, err
	}
	if len(runs) > 0 {
		r.LastRun[id] = &runs[0]
	}
	days, err := st.ChannelDays(ctx, now, id)
	if err != nil {
		return nil, err
	}
	for _, d := range days {
		r.Today[id][d.Channel] = d
	}
	for _, name := range config.Channels {
		if r.LastSuccess[id][name], err = st.LastSuccess(ctx, id, name); err != nil {
			return nil, err
		}
	}
	if site.Bing.Enabled {
		if r.Bing[id], err = st.QuotaDay(ctx, id, now.Format(time.DateOnly)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// FromReads builds a site's status at now from reads — of this site, or of every site at once
// (model.SiteReads) — and what live knows.
func FromReads(reads *model.SiteReads, site *config.Site, source string, now time.Time, live Live) *SiteStatus {
	now = now.UTC()
	out := &SiteStatus{SiteID: site.ID, Source: source, Status: "idle", Schedule: site.Schedule, LastExecution: reads.LastRun[site.ID],
		Channels: map[string]*ChannelStatus{}, Bing: BingStatus{Enabled: site.Bing.Enabled}}
	if sched := site.Cron(); sched != nil {
		out.NextRun = sched.Next(now)
	}
	switch {
	case live.RunningID != 0:
		out.Status, out.RunningRunID = "running", live.RunningID
	case reads.Leased[site.ID]:
		out.Status = "running"
	}
	for _, name := range config.Channels {
		cs := &ChannelStatus{Enabled: site.Enabled(name)}
		d := reads.Today[site.ID][name]
		cs.Today = DayCounts{d.Total, d.Successful, d.Failed}
		if last := reads.LastSuccess[site.ID][name]; !last.IsZero() {
			cs.LastSubmission = &last
		}
		out.Channels[name] = cs
	}
	out.Channels["feed"].Path = "/feeds/" + site.ID + ".xml"
	if site.Bing.Enabled {
		bingBlock(reads.Bing[site.ID], site, out)
	}
	return out
}

// bingBlock fills the Bing block: the day's quota by the one rule (bing.Quota), from what the
// state keeps of it — what runs used, and what Bing answered them.
func bingBlock(d model.BingDay, site *config.Site, out *SiteStatus) {
	q := bing.Today(site, d)
	remaining, used := q.Left(), d.Used
	out.Bing.DailyQuota, out.Bing.TodayQuotaUsed, out.Bing.TodayQuotaRemaining = site.Bing.DailyQuota, &used, &remaining
	out.Bing.TodayQuotaSource, out.Bing.Quota = q.Source(), q
	if says, told := q.BingSays(); told {
		out.Bing.BingRemaining = &says
	}
	out.Bing.LastSubmission = out.Channels["bing"].LastSubmission
}
