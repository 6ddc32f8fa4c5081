package server

import (
	"github.com/sitepush/sitepush/internal/channel/bing"
)

// quotaLine is Bing's quota of today as the dashboard says it: one number left, and where it
// comes from with what it is out of, in the words every face gives (bing.Quota.Source). No other
// number is said to be "left": the page has one. A quota spent is the day's ordinary end, not an
// error: its bar keeps its colour.
type quotaLine struct {
	// Left is what the site may still send today (bing.Quota.Left).
	Left int
	// From says where Left comes from, with today's quota in all (bing.Quota.Source); Also,
	// when set, what the other bound says (bing.Quota.Also).
	From, Also string
	// Pct is how much of today's quota is used.
	Pct int
}

// quotaLineOf words q, the day's quota by the one rule.
func quotaLineOf(q bing.Quota) *quotaLine {
	l := &quotaLine{Left: q.Left(), From: q.Source(), Also: q.Also(), Pct: 100}
	if all := q.Used + l.Left; all > 0 && !q.Full {
		l.Pct = percent(q.Used, all)
	}
	return l
}
