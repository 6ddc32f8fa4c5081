package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
)

// ErrNoURL is StoryOf's error for a URL the site's catalogue does not hold.
var ErrNoURL = errors.New("no such URL")

// URLStory is what sitepush knows of one URL of a site, whole: the document `sitepush inspect
// --json` prints and GET /api/sites/{id}/urls?url= answers (docs/api.md, "A URL's story"). A time
// nothing is known of is null.
type URLStory struct {
	URL string `json:"url"`
	// InSitemaps says whether the site's sitemaps list the URL, as the runs remember them; null
	// until a run has read them whole.
	InSitemaps *bool      `json:"inSitemaps"`
	FirstSeen  time.Time  `json:"firstSeen"`
	Lastmod    *time.Time `json:"lastmod"`
	// Channels holds the URL on each channel of the site that is on, by name.
	Channels map[string]ChannelStory `json:"channels"`
	// Preflight is what the latest preflight of the URL found, on any channel; null when none
	// ever looked.
	Preflight *PreflightStory `json:"preflight"`
}

// PreflightStory is a preflight's verdict on a URL (docs/runs.md, "Preflight"): ok, or
// ineligible with the reason, what was found and what to fix.
type PreflightStory struct {
	Verdict   string    `json:"verdict"`       // ok or ineligible
	Reason    *string   `json:"reason"`        // status, redirect, noindex, canonical or robots
	Detail    *string   `json:"detail"`        // "HTTP 404", the redirect's target, the canonical URL…
	Fix       string    `json:"fix,omitempty"` // what the site's owner can do
	Channel   string    `json:"channel"`       // the channel that checked
	CheckedAt time.Time `json:"checkedAt"`
}

// ChannelStory is a URL on one channel: what the channel last did with it, and whether it is due
// now, and why (new, failed, changed, resubmit), as the next run would find.
type ChannelStory struct {
	LastOutcome  *string    `json:"lastOutcome"` // ok, failed, rejected, skipped or ineligible
	LastAttempt  *time.Time `json:"lastAttempt"`
	LastDelivery *time.Time `json:"lastDelivery"`
	LastError    string     `json:"lastError,omitempty"`
	Due          bool       `json:"due"`
	Why          *string    `json:"why"`
	// HeldByQuota says why Bing's quota holds the URL today, when it is due and none is left.
	HeldByQuota string `json:"heldByQuota,omitempty"`
}

// StoryOf tells the story of site's URL u at now, from st; an error wrapping ErrNoURL when the
// site's catalogue does not hold u.
func StoryOf(ctx context.Context, st *store.Store, site *config.Site, u string, now time.Time) (*URLStory, error) {
	found, err := st.URLStory(ctx, site.ID, u, func(u string) int64 { return runner.URLHash([]byte(u)) }, 1)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 || found[0].URL != u {
		return nil, fmt.Errorf("%w: site %q has no URL %s in its catalogue (a run adds it when a sitemap lists it)", ErrNoURL, site.ID, u)
	}
	held, err := heldByQuota(ctx, st, site, now)
	if err != nil {
		return nil, err
	}
	in, known, err := runner.InSitemaps(ctx, st, site.ID, u)
	if err != nil {
		return nil, err
	}
	f := found[0]
	out := &URLStory{URL: f.URL, FirstSeen: f.FirstSeen, Lastmod: timeOrNil(f.Lastmod), Channels: map[string]ChannelStory{}}
	if known {
		out.InSitemaps = &in
	}
	for _, c := range channelStories(site, f, now, held) {
		cs := ChannelStory{LastAttempt: timeOrNil(c.Delivery.LastAttempt), LastDelivery: timeOrNil(c.Delivery.State.DeliveredAt),
			Due: c.Due != "", Why: stringOrNil(c.Due), HeldByQuota: c.Held}
		if c.Delivered {
			cs.LastOutcome, cs.LastError = &c.Delivery.Outcome, c.Delivery.LastError
		}
		out.Channels[c.Name] = cs
	}
	out.Preflight = preflightStory(f)
	return out, nil
}

// preflightStory is the latest preflight of a URL on any channel — one holding it back first
// among those of the same time — or nil when none looked.
func preflightStory(u store.URLState) *PreflightStory {
	var out *PreflightStory
	for _, name := range config.Channels {
		d, ok := u.Channels[name]
		if !ok || d.Preflight == nil {
			continue
		}
		p := &PreflightStory{Verdict: "ok", Channel: name, CheckedAt: d.PreflightAt}
		if d.Preflight.Reason != "" {
			p.Verdict, p.Reason, p.Detail, p.Fix = "ineligible", &d.Preflight.Reason, stringOrNil(d.Preflight.Detail), d.Preflight.Fix()
		}
		if out == nil || p.CheckedAt.After(out.CheckedAt) || (p.CheckedAt.Equal(out.CheckedAt) && p.Reason != nil && out.Reason == nil) {
			out = p
		}
	}
	return out
}

// channelStories tells whether a URL is due on each channel of site that is on, and why; held
// says why Bing's quota holds its due URLs today, "" when it does not.
func channelStories(site *config.Site, u store.URLState, now time.Time, held string) []channelStory {
	var out []channelStory
	for _, name := range config.Channels {
		if !site.Enabled(name) {
			continue
		}
		d, ok := u.Channels[name]
		c := channelStory{Name: name, Delivery: d, Delivered: ok}
		c.Due = runner.DueReason(d.State, u.Lastmod, site.ResubmitAfter.D(), site.PreflightWait(name), now, name == "feed")
		if c.Due != "" && name == "bing" {
			c.Held = held
		}
		out = append(out, c)
	}
	return out
}

// heldByQuota says why site's Bing quota holds its due URLs today — none is left, by the one rule
// (bing.Quota) — or "" when some are left.
func heldByQuota(ctx context.Context, st *store.Store, site *config.Site, now time.Time) (string, error) {
	if !site.Bing.Enabled {
		return "", nil
	}
	d, err := st.QuotaDay(ctx, site.ID, now.UTC().Format(time.DateOnly))
	if q := bing.Today(site.Bing.DailyQuota, d); err == nil && q.Left() == 0 {
		return q.Source(), nil
	}
	return "", err
}

// urlStory answers GET /api/sites/{id}/urls?url=U: the URL's story.
func (s *Server) urlStory(w http.ResponseWriter, r *http.Request) {
	e, ok := s.sites.Get(r.PathValue("id"))
	if !ok {
		s.noSite(w, r.PathValue("id"))
		return
	}
	u := r.URL.Query().Get("url")
	if u == "" {
		answer.WriteError(w, http.StatusBadRequest, "say which URL: ?url= the URL, whole (the dashboard's URL page searches by prefix)")
		return
	}
	doc, err := StoryOf(r.Context(), s.state, e.Site, u, s.now())
	switch {
	case errors.Is(err, ErrNoURL):
		answer.WriteError(w, http.StatusNotFound, err.Error())
	case err != nil:
		s.logger.Error("telling a URL's story", "site", e.Site.ID, "err", err)
		answer.WriteError(w, http.StatusServiceUnavailable, "the state could not be read: "+err.Error())
	default:
		answer.WriteJSON(w, http.StatusOK, doc)
	}
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func stringOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
