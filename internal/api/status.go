package api

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
	QuotaUsed(ctx context.Context, site, day string) (used int, full bool, err error)
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
	Enabled             bool       `json:"enabled"`
	DailyQuota          int        `json:"dailyQuota,omitempty"`
	TodayQuotaUsed      *int       `json:"todayQuotaUsed,omitempty"`
	TodayQuotaRemaining *int       `json:"todayQuotaRemaining,omitempty"`
	LastSubmission      *time.Time `json:"lastSubmission,omitempty"`
	// BingRemaining is what Bing says the site may still submit today, when it was asked; Error
	// says why Bing could not tell (a key it refuses).
	BingRemaining *int   `json:"bingRemaining,omitempty"`
	Error         string `json:"error,omitempty"`
}

// Live is what the process answering knows of a site beyond its state.
type Live struct {
	// RunningID is the id of a run of the site this process is making, 0 when none.
	RunningID int64
	// BingLeft, when set, asks Bing what the site may still submit today.
	BingLeft func(ctx context.Context) (int, error)
}

// Status builds a site's status at now from its state; source says where the site comes from.
func Status(ctx context.Context, st State, site *config.Site, source string, now time.Time, live Live) (*SiteStatus, error) {
	reads, err := readSite(ctx, st, site, now.UTC())
	if err != nil {
		return nil, err
	}
	return FromReads(ctx, reads, site, source, now, live), nil
}

// readSite reads what a site's status needs, with a few queries of the site.
func readSite(ctx context.Context, st State, site *config.Site, now time.Time) (*model.SiteReads, error) {
	id := site.ID
	r := &model.SiteReads{Leased: map[string]bool{}, LastRun: map[string]*model.Record{}, Today: map[string]map[string]model.ChannelDay{id: {}},
		LastSuccess: map[string]map[string]time.Time{id: {}}, QuotaUsed: map[string]int{}, QuotaFull: map[string]bool{}}
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
		if r.QuotaUsed[id], r.QuotaFull[id], err = st.QuotaUsed(ctx, id, now.Format(time.DateOnly)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// FromReads builds a site's status at now from reads — of this site, or of every site at once
// (model.SiteReads) — asking Bing, through live, what it leaves today.
func FromReads(ctx context.Context, reads *model.SiteReads, site *config.Site, source string, now time.Time, live Live) *SiteStatus {
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
		bingBlock(ctx, reads.QuotaUsed[site.ID], reads.QuotaFull[site.ID], site, live, out)
	}
	return out
}

// bingBlock fills the Bing block: the day's quota as sitepush counts it, lowered to what Bing
// says is left when it is asked.
func bingBlock(ctx context.Context, used int, full bool, site *config.Site, live Live, out *SiteStatus) {
	q := bing.Quota{Daily: site.Bing.DailyQuota, Used: used, Full: full}
	if live.BingLeft != nil {
		if left, err := live.BingLeft(ctx); err != nil {
			out.Bing.Error = "Bing did not tell the quota left: " + err.Error()
		} else {
			q.BingLeft, q.Told = left, true
			out.Bing.BingRemaining = &left
		}
	}
	remaining := q.Left()
	out.Bing.DailyQuota, out.Bing.TodayQuotaUsed, out.Bing.TodayQuotaRemaining = site.Bing.DailyQuota, &used, &remaining
	out.Bing.LastSubmission = out.Channels["bing"].LastSubmission
}
