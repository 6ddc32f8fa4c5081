package server

import (
	"fmt"

	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/human"
)

// quotaLine is Bing's quota of today as the dashboard says it: one number left, and where it
// comes from with what it is out of — Bing's grant, the site's bing.dailyQuota, or sitepush's
// default limit. A bing.dailyQuota nobody set is not named as if it were the site's: with Bing
// granting 10, "10 used of dailyQuota 100" told of a limit that was never the one counted. No
// other number is said to be "left": the page has one. A quota spent is the day's ordinary end,
// not an error: its bar keeps its colour.
type quotaLine struct {
	// Left is what the site may still send today (bing.Quota.Left).
	Left int
	// From says where Left comes from, with today's quota in all; Also, when set, what the
	// other bound says.
	From, Also string
	// Pct is how much of today's quota is used.
	Pct int
}

// quotaLineOf words q, the day's quota by the one rule; given says whether the configuration set
// bing.dailyQuota (config.Site.Given).
func quotaLineOf(q bing.Quota, given bool) *quotaLine {
	if q.Full {
		return &quotaLine{From: "Bing refused more today (quota exceeded)", Pct: 100}
	}
	l := &quotaLine{Left: q.Left(), Pct: 100}
	all := q.Used + l.Left
	if all > 0 {
		l.Pct = percent(q.Used, all)
	}
	says, told := q.BingSays()
	switch {
	case told && says <= l.Left:
		l.From = "Bing's grant of " + human.Int(all)
		if given {
			l.Also = "your bing.dailyQuota is " + human.Int(q.Daily)
		}
	case given:
		l.From = "your bing.dailyQuota of " + human.Int(q.Daily)
		l.Also = bingSaid(says, told)
	default:
		l.From = fmt.Sprintf("sitepush's default limit of %s a day, which bing.dailyQuota changes", human.Int(q.Daily))
		l.Also = bingSaid(says, told)
	}
	return l
}

// bingSaid is what Bing's answer of today leaves, in words, or that it gave none.
func bingSaid(says int, told bool) string {
	if !told {
		return "Bing has not told its grant today"
	}
	return "Bing would take " + human.Int(says) + " more"
}
