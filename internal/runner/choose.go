package runner

import (
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// choose counts a page on channel ch, and returns it when the run's rule (mode.rule) makes it
// due there.
func (c *collector) choose(ch int, p channel.Page, st model.DeliveryState) (channel.Due, bool) {
	stats := c.rec.Channels[c.channels[ch]]
	c.known[ch] = c.known[ch] || st.Known
	sel := c.selection[ch]
	due, retry := isDue(st, p.Lastmod, c.site.ResubmitAfter.D(), c.site.PreflightWait(c.channels[ch]), c.now, sel.OnlyNew)
	counted, taken := c.mode.rule(sel, st, due, retry)
	switch {
	case !counted:
		return channel.Due{}, false
	case !taken:
		stats.Skipped++
		return channel.Due{}, false
	}
	stats.Due++
	d := channel.Due{Hash: p.Hash, Lastmod: p.Lastmod, Retry: retry}
	if retry {
		d.Failures = st.Failures
	}
	if c.urls != nil && p.URL != "" {
		c.urls[p.Hash] = p.URL
	}
	return d, true
}

// Why a URL is due on a channel (DueReason).
const (
	DueNew      = "new"
	DueFailed   = "failed"
	DueChanged  = "changed"
	DueResubmit = "resubmit"
	DueRecheck  = "recheck"
)

// isDue decides whether a URL present in the sitemaps is due on a channel: DueReason says so,
// and retry is set when it is due because its last attempt failed.
func isDue(st model.DeliveryState, lastmod time.Time, resubmitAfter, preflightWait time.Duration, now time.Time, onlyNew bool) (due, retry bool) {
	why := DueReason(st, lastmod, resubmitAfter, preflightWait, now, onlyNew)
	return why != "", why == DueFailed
}

// DueReason says why a URL present in the sitemaps is due on a channel (docs/runs.md, "What is
// due"), or "" when it is not: never delivered there (DueNew); its last attempt failed
// (DueFailed); its lastmod newer than the one delivered — or, when none was delivered, newer
// than the delivery itself (DueChanged); or resubmitAfter has passed since it was sent
// (DueResubmit: a URL a first run took as known without sending it, the backlog, was never
// sent, and only a change makes it due). A channel that wants only new URLs gets the first two.
// A URL a preflight held back is due when its lastmod changed, or, as DueRecheck, once
// preflightWait (PreflightWait) has passed since it was checked.
func DueReason(st model.DeliveryState, lastmod time.Time, resubmitAfter, preflightWait time.Duration, now time.Time, onlyNew bool) string {
	switch {
	case !st.Known:
		return DueNew
	case st.Failed:
		return DueFailed
	case st.Ineligible && !lastmod.IsZero() && !lastmod.Equal(st.Lastmod):
		return DueChanged
	case st.Ineligible && !now.Before(st.CheckedAt.Add(preflightWait)):
		return DueRecheck
	case st.Ineligible:
		return ""
	case onlyNew:
		return ""
	case !lastmod.IsZero() && !st.Lastmod.IsZero() && lastmod.After(st.Lastmod):
		return DueChanged
	case !lastmod.IsZero() && st.Lastmod.IsZero() && lastmod.After(st.DeliveredAt):
		return DueChanged
	case resubmitAfter > 0 && !st.Skipped && !now.Before(st.DeliveredAt.Add(resubmitAfter)):
		return DueResubmit
	}
	return ""
}
