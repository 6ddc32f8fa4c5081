package bing

import (
	"fmt"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// dailyQuotaKey is the setting whose value is Daily: it is named only when the configuration set
// it (config.Site.Given).
const dailyQuotaKey = "bing.dailyQuota"

// Quota is a site's Bing quota of one UTC day as sitepush counts it: the daily quota configured,
// what runs reserved or sent, whether Bing refused for quota, and what Bing said was left when it
// was last asked that day. Left is the one place that says how much a site may still send today,
// and Source why — for runs, the dry run, `sitepush check`, /status, the dashboard and the metrics.
type Quota struct {
	// Daily is bing.dailyQuota; DailyGiven says whether the configuration set it, or Daily is
	// sitepush's default: only a setting someone wrote is named as the site's own.
	Daily      int
	DailyGiven bool
	// Used counts the URLs reserved or sent today; Full is set once Bing refused for quota.
	Used int
	Full bool
	// BingLeft is what Bing said the site may still submit today, when Told; UsedWhenTold is what
	// Used was then: the URLs used since came off what Bing said.
	BingLeft     int
	Told         bool
	UsedWhenTold int
}

// Today is site's Bing quota of a day as the state keeps it.
func Today(site *config.Site, d model.BingDay) Quota {
	return today(site.Bing.DailyQuota, site.Given(dailyQuotaKey), d)
}

// today is the quota of a day as the state keeps it, with dailyQuota daily, given when the
// configuration set it.
func today(daily int, given bool, d model.BingDay) Quota {
	return Quota{Daily: daily, DailyGiven: given, Used: d.Used, Full: d.Full, BingLeft: d.BingLeft, Told: d.Told, UsedWhenTold: d.UsedWhenTold}
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

// Source says where Left comes from, with today's quota in all — the one wording every face
// gives (the run's notes, /status, inspect, the dashboard, `sitepush check`): "Bing refused more
// today (quota exceeded)", "Bing's grant of 10" (what it said plus what went before), "your
// bing.dailyQuota of 5", or "sitepush's default limit of 100 a day, which bing.dailyQuota
// changes". A bing.dailyQuota nobody set is never named as if it were the site's: with Bing
// granting 10, "dailyQuota 100" told of a limit that was not the one counted.
func (q Quota) Source() string {
	switch {
	case q.Full:
		return "Bing refused more today (quota exceeded)"
	case q.bingBinds():
		return "Bing's grant of " + human.Int(q.Used+q.Left())
	case q.DailyGiven:
		return "your bing.dailyQuota of " + human.Int(q.Daily)
	}
	return fmt.Sprintf("sitepush's default limit of %s a day, which bing.dailyQuota changes", human.Int(q.Daily))
}

// Also says what the other bound says, for a face with room for it: "your bing.dailyQuota is
// 100" under Bing's grant (only when set), "Bing would take 40 more" or "Bing has not told its
// grant today" under the daily limit; "" when there is nothing more to say.
func (q Quota) Also() string {
	switch {
	case q.Full:
		return ""
	case q.bingBinds():
		if q.DailyGiven {
			return "your bing.dailyQuota is " + human.Int(q.Daily)
		}
		return ""
	case !q.Told:
		return "Bing has not told its grant today"
	}
	return "Bing would take " + human.Int(q.byBing()) + " more"
}

// bingBinds says whether Bing's answer, not the daily limit, sets Left.
func (q Quota) bingBinds() bool { return q.Told && q.byBing() <= q.byDaily() }
