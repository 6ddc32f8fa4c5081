package bing

// Quota is a site's Bing quota of one UTC day as sitepush counts it: the daily quota configured,
// what runs reserved or sent, whether Bing refused for quota, and what Bing says is left when it
// was asked. Left is the one place that says how much a site may still send today — for runs,
// `sitepush check`, /status and the metrics.
type Quota struct {
	// Daily is bing.dailyQuota.
	Daily int
	// Used counts the URLs reserved or sent today; Full is set once Bing refused for quota.
	Used int
	Full bool
	// BingLeft is what Bing says the site may still submit today, when Told.
	BingLeft int
	Told     bool
}

// Left is how many URLs the site may still send today: none once Bing refused for quota, else
// dailyQuota less what was used, lowered to what Bing says is left when it told.
func (q Quota) Left() int {
	if q.Full {
		return 0
	}
	left := max(0, q.Daily-q.Used)
	if q.Told {
		left = min(left, max(0, q.BingLeft))
	}
	return left
}
