package server

import (
	"fmt"

	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/human"
)

// quotaLine is Bing's quota of today as the dashboard says it: one number, what it is out of,
// and where it comes from — Bing's grant, the site's bing.dailyQuota, or sitepush's default
// limit. A bing.dailyQuota nobody set is not named as if it were the site's: with Bing granting
// 10, "10 used of dailyQuota 100" told of a limit that was never the one counted. A quota spent
// is the day's ordinary end, not an error: its bar keeps its colour.
type quotaLine struct {
	// Left is what the site may still send today (bing.Quota.Left); Of is today's quota in all,
	// what went and what is left, 0 when Bing refused more (it told no number).
	Left, Of int
	// From says where the number comes from; Also, when set, what the other bound says.
	From, Also string
	// Pct is how much of today's quota is used.
	Pct int
}

// quotaLineOf words q, the day's quota by the one rule; given says whether the configuration set
// bing.dailyQuota (config.Site.Given).
func quotaLineOf(q bing.Quota, given bool) *quotaLine {
	left := q.Left()
	if q.Full {
		return &quotaLine{From: "Bing refused more today (quota exceeded)", Pct: 100}
	}
	l := &quotaLine{Left: left, Of: q.Used + left}
	l.Pct = 100
	if l.Of > 0 {
		l.Pct = percent(q.Used, l.Of)
	}
	says, told := q.BingSays()
	switch {
	case told && says <= left:
		l.From = "Bing's grant"
		if given {
			l.Also = fmt.Sprintf("your bing.dailyQuota is %s", human.Int(q.Daily))
		}
	case given:
		l.From = "your bing.dailyQuota"
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
	return fmt.Sprintf("Bing says %s left", human.Int(says))
}
