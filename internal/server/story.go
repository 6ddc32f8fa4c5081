package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/sitechannels"
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
	// Content is where the page stands in the content checks; null when it is out of them and
	// was never checked.
	Content *ContentStory `json:"content"`
	// Channels holds the URL on each channel of the site that is on, by name.
	Channels map[string]ChannelStory `json:"channels"`
	// Preflight is what the latest preflight of the URL found, on any channel; null when none
	// ever looked.
	Preflight *PreflightStory `json:"preflight"`
	// Bing is what Bing's GetUrlInfo last said of the URL (bing.track); null when it was never
	// asked.
	Bing *BingStory `json:"bing"`
	// Removed tells, of a URL that left every sitemap, what it answered when a run asked the
	// site, and when IndexNow accepted its removal notice; null when it never left them.
	Removed *RemovedStory `json:"removed"`
	// Google is what Google's URL Inspection last said of the URL; null when it was never asked.
	Google *GoogleStory `json:"google"`
}

// BingStory is whether and when Bing crawled a URL submitted through IndexNow or Bing, as
// GetUrlInfo last said.
type BingStory struct {
	// LastCrawled is Bing's last crawl of the URL; null when it never crawled it.
	LastCrawled *time.Time `json:"lastCrawled"`
	// HTTPStatus is the status Bing got at that crawl.
	HTTPStatus int        `json:"httpStatus"`
	Discovered *time.Time `json:"discovered"`
	CheckedAt  time.Time  `json:"checkedAt"`
	// HoursToCrawl is the time from the URL's submission to Bing's crawl after it; null while
	// no crawl after the submission is known.
	HoursToCrawl *float64 `json:"hoursToCrawl"`
}

// RemovedStory is what became of a URL that left every sitemap of its site.
type RemovedStory struct {
	LeftAt time.Time `json:"leftAt"`
	// Status is the HTTP status the URL answered when a run probed it (404 and 410 are
	// announced through IndexNow); null until a run has.
	Status      *int       `json:"status"`
	AnnouncedAt *time.Time `json:"announcedAt"`
}

// GoogleStory is what Google's URL Inspection last said of a URL (its indexStatusResult), and
// when it was asked.
type GoogleStory struct {
	CoverageState string     `json:"coverageState"`
	IndexingState string     `json:"indexingState"`
	LastCrawl     *time.Time `json:"lastCrawl"`
	CheckedAt     time.Time  `json:"checkedAt"`
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
	// LastOutcome is ok, failed, rejected or ineligible: the last attempt's; or, of a URL taken
	// as known without being sent, backlog or baseline (model.UnsentBacklog): then NotSent says
	// so in words, TakenAt when, and LastAttempt is null — taking it was no attempt.
	LastOutcome  *string    `json:"lastOutcome"`
	LastAttempt  *time.Time `json:"lastAttempt"`
	LastDelivery *time.Time `json:"lastDelivery"`
	LastError    string     `json:"lastError,omitempty"`
	NotSent      string     `json:"notSent,omitempty"`
	TakenAt      *time.Time `json:"takenAt,omitempty"`
	// SameAsSent says whether the page's content at its last check is what the channel was
	// sent, when its sitemap is checked by content (ContentStory.InRotation): false makes it due,
	// as changed; null when there is nothing to compare.
	SameAsSent *bool   `json:"sameAsSent"`
	Due        bool    `json:"due"`
	Why        *string `json:"why"`
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
	out := &URLStory{URL: f.URL, FirstSeen: f.FirstSeen, Lastmod: timeOrNil(f.Lastmod), Content: contentStory(f.Checks), Channels: map[string]ChannelStory{}}
	ins, err := st.Inspection(ctx, site.ID, runner.URLHash([]byte(f.URL)))
	if err != nil {
		return nil, err
	}
	if ins != nil {
		out.Google = &GoogleStory{CoverageState: ins.CoverageState, IndexingState: ins.IndexingState,
			LastCrawl: timeOrNil(ins.LastCrawl), CheckedAt: ins.CheckedAt}
	}
	if known {
		out.InSitemaps = &in
	}
	if rm, ok, err := st.RemovalOf(ctx, site.ID, runner.URLHash([]byte(f.URL))); err != nil {
		return nil, err
	} else if ok && !in {
		out.Removed = &RemovedStory{LeftAt: rm.LeftAt, AnnouncedAt: timeOrNil(rm.AnnouncedAt)}
		if rm.Probed {
			out.Removed.Status = &rm.Status
		}
	}
	for _, c := range channelStories(site, onlyNew(ctx, st, site, now), f, now, held) {
		cs := ChannelStory{LastAttempt: timeOrNil(c.Delivery.LastAttempt), LastDelivery: timeOrNil(c.Delivery.State.DeliveredAt),
			SameAsSent: c.SameAsSent, Due: c.Due != "", Why: stringOrNil(c.Due), HeldByQuota: c.Held}
		if c.Delivered {
			cs.LastOutcome, cs.LastError = &c.Delivery.Outcome, c.Delivery.LastError
		}
		if st := c.Delivery.State; st.Unsent != "" {
			cs.LastAttempt, cs.NotSent, cs.TakenAt = nil, st.NotSent(), timeOrNil(st.TakenAt)
		}
		out.Channels[c.Name] = cs
	}
	out.Preflight = preflightStory(f)
	crawl, asked, err := st.BingCrawl(ctx, site.ID, runner.URLHash([]byte(u)))
	if err != nil {
		return nil, err
	}
	if asked {
		out.Bing = bingStory(crawl)
	}
	return out, nil
}

// bingStory tells what Bing said of a URL's crawl.
func bingStory(c model.BingCrawl) *BingStory {
	b := &BingStory{LastCrawled: timeOrNil(c.LastCrawled), HTTPStatus: c.HTTPStatus, Discovered: timeOrNil(c.Discovered), CheckedAt: c.CheckedAt}
	if took, ok := c.ToCrawl(); ok {
		hours := math.Round(took.Hours()*100) / 100
		b.HoursToCrawl = &hours
	}
	return b
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

// onlyNew says, by name, which channels of site want only URLs they never had: those whose
// selection says so (channel.Selection.OnlyNew, the feed's), as it says to their runs. The
// channels are built as a run builds them, and asked nothing else: they send nothing.
func onlyNew(ctx context.Context, st *store.Store, site *config.Site, now time.Time) map[string]bool {
	out := map[string]bool{}
	for _, ch := range sitechannels.For(site, "all", nil, "", st, now) {
		if s, ok := ch.(channel.Selective); ok {
			out[ch.Name()] = s.Selection(ctx).OnlyNew
		}
	}
	return out
}

// channelStories tells whether a URL is due on each channel of site that is on, and why, by the
// rule its runs follow: only new URLs for those of onlyNew (by name), and, while its page is in
// the rotation of content checks, changed by its content alone (a moved lastmod makes it a
// suspect, not changed). held says why Bing's quota holds its due URLs today, "" when it does not.
func channelStories(site *config.Site, onlyNew map[string]bool, u store.URLState, now time.Time, held string) []channelStory {
	var out []channelStory
	for _, name := range config.Channels {
		if !site.Enabled(name) {
			continue
		}
		d, ok := u.Channels[name]
		c := channelStory{Name: name, Delivery: d, Delivered: ok, SameAsSent: sameAsSent(d.State, u.Checks.InRotation)}
		page := channel.Page{Lastmod: u.Lastmod, Check: u.Checks.InRotation}
		c.Due = runner.DueReason(d.State, page, site.ResubmitAfter.D(), site.PreflightWait(name), now, onlyNew[name])
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
	if q := bing.Today(site, d); err == nil && q.Left() == 0 {
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
