package bing

import (
	"fmt"

	"github.com/sitepush/sitepush/internal/model"
)

// Quota is a site's Bing quota of one UTC day as sitepush counts it: the daily quota configured,
// what runs reserved or sent, whether Bing refused for quota, and what Bing said was left when it
// was last asked that day. Left is the one place that says how much a site may still send today,
// and Source why — for runs, the dry run, `sitepush check`, /status, the dashboard and the metrics.
type Quota struct {
	// Daily is bing.dailyQuota.
	Daily int
	// Used counts the URLs reserved or sent today; Full is set once Bing refused for quota.
	Used int
	Full bool
	// BingLeft is what Bing said the site may still submit today, when Told; UsedWhenTold is what
	// Used was then: the URLs used since came off what Bing said.
	BingLeft     int
	Told         bool
	UsedWhenTold int
}

// Today is the quota of a day as the state keeps it, with dailyQuota daily.
func Today(daily int, d model.BingDay) Quota {
	return Quota{Daily: daily, Used: d.Used, Full: d.Full, BingLeft: d.BingLeft, Told: d.Told, UsedWhenTold: d.UsedWhenTold}
}

// Answered is q with Bing's answer of now, left: what a dry run and `sitepush check` count on
// without keeping it.
func (q Quota) Answered(left int) Quota {
	q.Told, q.BingLeft, q.UsedWhenTold = true, left, q.Used
	return q
}

// Left is how many URLs the site may still send today: none once Bing refused for quota, else the
// smaller of dailyQuota and what Bing said was left, each less what was used since.
func (q Quota) Left() int {
	if q.Full {
		return 0
	}
	left := q.byDaily()
	if q.Told {
		left = min(left, q.byBing())
	}
	return left
}

// byDaily is what dailyQuota leaves.
func (q Quota) byDaily() int { return max(0, q.Daily-q.Used) }

// byBing is what Bing's answer leaves: what it said less what was used since.
func (q Quota) byBing() int { return max(0, q.BingLeft-max(0, q.Used-q.UsedWhenTold)) }

// BingSays is what Bing's answer of the day leaves now, and whether Bing answered that day.
func (q Quota) BingSays() (int, bool) { return q.byBing(), q.Told }

// Source says where Left comes from, in words: "Bing refused more today (quota exceeded)", "Bing
// says 0 left today" (what it said, less what went since), or "dailyQuota 100".
func (q Quota) Source() string {
	switch {
	case q.Full:
		return "Bing refused more today (quota exceeded)"
	case q.Told && q.byBing() <= q.byDaily():
		return fmt.Sprintf("Bing says %d left today", q.byBing())
	}
	return fmt.Sprintf("dailyQuota %d", q.Daily)
}
