package server

import (
	"context"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sites"
)

// siteStatus is the answer of GET /status?site=ID.
type siteStatus struct {
	SiteID string `json:"siteId"`
	Source string `json:"source"`
	// Status is "running" while a run of the site holds its lease, in this instance or another.
	Status        string                    `json:"status"`
	RunningRunID  int64                     `json:"runningRunId,omitempty"`
	Schedule      string                    `json:"schedule"`
	NextRun       time.Time                 `json:"nextRun"`
	LastExecution *model.Record             `json:"lastExecution"`
	Channels      map[string]*channelStatus `json:"channels"`
	Bing          bingStatus                `json:"bing"`
}

// channelStatus is a channel's part of a site's status.
type channelStatus struct {
	Enabled bool `json:"enabled"`
	// Today counts the URLs whose delivery ended today (UTC).
	Today          dayCounts  `json:"today"`
	LastSubmission *time.Time `json:"lastSubmission"`
	// Path is where the feed is served (the feed channel only).
	Path string `json:"path,omitempty"`
}

type dayCounts struct {
	Total      int `json:"total"`
	Successful int `json:"successful"`
	Failed     int `json:"failed"`
}

// bingStatus is the Bing block of the original design, with the quota of today (UTC).
type bingStatus struct {
	Enabled             bool       `json:"enabled"`
	DailyQuota          int        `json:"dailyQuota,omitempty"`
	TodayQuotaUsed      *int       `json:"todayQuotaUsed,omitempty"`
	TodayQuotaRemaining *int       `json:"todayQuotaRemaining,omitempty"`
	LastSubmission      *time.Time `json:"lastSubmission,omitempty"`
	// BingRemaining is what Bing says the site may still submit today, asked at most every few
	// minutes; Error says why Bing could not tell (a key it refuses).
	BingRemaining *int   `json:"bingRemaining,omitempty"`
	Error         string `json:"error,omitempty"`
}

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
		writeJSON(w, http.StatusOK, map[string][]*siteStatus{"sites": all})
		return
	}
	e, ok := s.sites.Get(id)
	if !ok {
		s.noSite(w, id)
		return
	}
	v, err := s.cache.get("status:"+e.Site.ID, func() (any, error) {
		ctx, cancel := detached(r)
		defer cancel()
		st, err := s.siteStatus(ctx, e)
		if err != nil {
			return nil, err
		}
		return marshal(st)
	})
	s.answer(w, v, err)
}

// statuses returns every site's status, for GET /status and the dashboard.
func (s *Server) statuses(r *http.Request) ([]*siteStatus, error) {
	v, err := s.cache.get("statuses", func() (any, error) {
		ctx, cancel := detached(r)
		defer cancel()
		out := []*siteStatus{}
		for _, e := range s.sites.All() {
			st, err := s.siteStatus(ctx, e)
			if err != nil {
				return nil, err
			}
			out = append(out, st)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]*siteStatus), nil
}

func (s *Server) siteStatus(ctx context.Context, e sites.Entry) (*siteStatus, error) {
	site, now := e.Site, s.now().UTC()
	st := &siteStatus{SiteID: site.ID, Source: e.Source, Status: "idle", Schedule: site.Schedule,
		Channels: map[string]*channelStatus{}, Bing: bingStatus{Enabled: site.Bing.Enabled}}
	if sched := site.Cron(); sched != nil {
		st.NextRun = sched.Next(now)
	}
	if id, ok := s.runs.Active(site.ID); ok {
		st.Status, st.RunningRunID = "running", id
	} else if leased, err := s.state.Leased(ctx, site.ID, now); err != nil {
		return nil, err
	} else if leased {
		st.Status = "running"
	}
	if err := s.lastExecution(ctx, st); err != nil {
		return nil, err
	}
	days, err := s.state.ChannelDays(ctx, now, site.ID)
	if err != nil {
		return nil, err
	}
	for _, name := range config.Channels {
		cs := &channelStatus{Enabled: site.Enabled(name)}
		for _, d := range days {
			if d.Channel == name {
				cs.Today = dayCounts{d.Total, d.Successful, d.Failed}
			}
		}
		last, err := s.state.LastSuccess(ctx, site.ID, name)
		if err != nil {
			return nil, err
		}
		if !last.IsZero() {
			cs.LastSubmission = &last
		}
		st.Channels[name] = cs
	}
	st.Channels["feed"].Path = "/feeds/" + site.ID + ".xml"
	if site.Bing.Enabled {
		used, full, err := s.state.QuotaUsed(ctx, site.ID, now.Format(time.DateOnly))
		if err != nil {
			return nil, err
		}
		q := bing.Quota{Daily: site.Bing.DailyQuota, Used: used, Full: full}
		if s.bingQuota != nil {
			if left, err := s.bingSays(ctx, site); err != nil {
				st.Bing.Error = "Bing did not tell the quota left: " + err.Error()
			} else {
				q.BingLeft, q.Told = left, true
				st.Bing.BingRemaining = &left
			}
		}
		remaining := q.Left()
		st.Bing.DailyQuota, st.Bing.TodayQuotaUsed, st.Bing.TodayQuotaRemaining = site.Bing.DailyQuota, &used, &remaining
		st.Bing.LastSubmission = st.Channels["bing"].LastSubmission
	}
	return st, nil
}

// lastExecution is the site's latest run: the one going, or the last that ended.
func (s *Server) lastExecution(ctx context.Context, st *siteStatus) error {
	runs, err := s.state.Runs(ctx, st.SiteID, 1)
	if err != nil {
		return err
	}
	if len(runs) > 0 {
		st.LastExecution = &runs[0]
	}
	return nil
}

// answer writes a cached JSON answer, or the error that kept it from being made.
func (s *Server) answer(w http.ResponseWriter, v any, err error) {
	if err != nil {
		s.logger.Error("answering a request", "err", err)
		writeError(w, http.StatusServiceUnavailable, "the state could not be read: "+err.Error())
		return
	}
	writeRaw(w, http.StatusOK, v.([]byte))
}

func (s *Server) noSite(w http.ResponseWriter, id string) {
	errorf(w, http.StatusNotFound, "no site %q: GET /api/sites lists them", id)
}
