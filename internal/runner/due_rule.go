package runner

import (
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// isDue decides whether a URL present in the sitemaps is due on a channel (docs/runs.md, "What
// is due"): never delivered there; its last attempt failed (retry); its lastmod newer than the
// one delivered — or, when none was delivered, newer than the delivery itself; or resubmitAfter
// has passed since it was sent (a URL a first run took as known without sending it, the backlog,
// was never sent: only a change makes it due). A channel that wants only new URLs gets the first
// two.
func isDue(st model.DeliveryState, lastmod time.Time, resubmitAfter time.Duration, now time.Time, onlyNew bool) (due, retry bool) {
	switch {
	case !st.Known:
		return true, false
	case st.Failed:
		return true, true
	case onlyNew:
		return false, false
	case !lastmod.IsZero() && !st.Lastmod.IsZero() && lastmod.After(st.Lastmod):
		return true, false
	case !lastmod.IsZero() && st.Lastmod.IsZero() && lastmod.After(st.DeliveredAt):
		return true, false
	case resubmitAfter > 0 && !st.Skipped && !now.Before(st.DeliveredAt.Add(resubmitAfter)):
		return true, false
	}
	return false, false
}
