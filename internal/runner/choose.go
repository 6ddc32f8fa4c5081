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
	due, retry := isDue(st, p, c.site.ResubmitAfter.D(), c.site.PreflightWait(c.channels[ch]), c.now, sel.OnlyNew)
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
func isDue(st model.DeliveryState, p channel.Page, resubmitAfter, preflightWait time.Duration, now time.Time, onlyNew bool) (due, retry bool) {
	why := DueReason(st, p, resubmitAfter, preflightWait, now, onlyNew)
	return why != "", why == DueFailed
}

// DueReason says why a URL present in the sitemaps, as page p, is due on a channel (docs/runs.md,
// "What is due"), or "" when it is not: never delivered there (DueNew); its last attempt failed
// (DueFailed); changed since it was delivered (DueChanged); or resubmitAfter has passed since it
// was sent (DueResubmit: a URL a first run took as known without sending it, the backlog, was
// never sent, and only a change makes it due). A channel that wants only new URLs gets the first
// two. A URL a preflight held back is due when it changed, or, as DueRecheck, once preflightWait
// (PreflightWait) has passed since it was checked.
//
// Changed is told by the page's lastmod — newer than the one delivered or, when none was
// delivered, than the delivery itself — unless its sitemap is checked by content (p.Check,
// docs/runs.md "What changed"): then only by its content, a fingerprint at its last check other
// than the one the channel was sent. A moved lastmod there only makes the page a suspect, which
// the run's content checks look at (checkContent).
func DueReason(st model.DeliveryState, p channel.Page, resubmitAfter, preflightWait time.Duration, now time.Time, onlyNew bool) string {
	changed := changedSince(st, p)
	switch {
	case !st.Known:
		return DueNew
	case st.Failed:
		return DueFailed
	case st.Ineligible && changed:
		return DueChanged
	case st.Ineligible && !now.Before(st.CheckedAt.Add(preflightWait)):
		return DueRecheck
	case st.Ineligible:
		return ""
	case onlyNew:
		return ""
	case changed:
		return DueChanged
	case resubmitAfter > 0 && st.Unsent == "" && !now.Before(st.DeliveredAt.Add(resubmitAfter)):
		return DueResubmit
	}
	return ""
}

// changedSince reports whether page p changed since the delivery st: by its content when its
// sitemap is checked by content, else by its lastmod (DueReason). A URL a preflight held back
// compares the lastmod it was checked with.
func changedSince(st model.DeliveryState, p channel.Page) bool {
	switch {
	case p.Check:
		return st.Content != 0 && st.Sent != 0 && st.Content != st.Sent
	case p.Lastmod.IsZero():
		return false
	case st.Ineligible:
		return !p.Lastmod.Equal(st.Lastmod)
	case !st.Lastmod.IsZero():
		return p.Lastmod.After(st.Lastmod)
	case st.Unsent != "":
		return p.Lastmod.After(st.TakenAt)
	}
	return p.Lastmod.After(st.DeliveredAt)
}
