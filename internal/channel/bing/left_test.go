package bing

import "testing"

// TestQuotaLeft checks the one rule: the smaller of dailyQuota and what Bing said, each less what
// was used since, and none once Bing refused; and the words that say where the number comes from
// (Source) and what the other bound says (Also): bing.dailyQuota is named only when it was set.
func TestQuotaLeft(t *testing.T) {
	const byDefault = "sitepush's default limit of 100 a day, which bing.dailyQuota changes"
	for _, tc := range []struct {
		name         string
		q            Quota
		want         int
		source, also string
	}{
		{"nothing used", Quota{Daily: 100}, 100, byDefault, "Bing has not told its grant today"},
		{"nothing used, set", Quota{Daily: 100, DailyGiven: true}, 100, "your bing.dailyQuota of 100", "Bing has not told its grant today"},
		{"some used", Quota{Daily: 100, Used: 30}, 70, byDefault, "Bing has not told its grant today"},
		{"more used than the quota (lowered meanwhile)", Quota{Daily: 100, DailyGiven: true, Used: 130}, 0, "your bing.dailyQuota of 100", "Bing has not told its grant today"},
		{"Bing refused for quota", Quota{Daily: 100, Used: 30, Full: true}, 0, "Bing refused more today (quota exceeded)", ""},
		{"Bing says less", Quota{Daily: 100, Used: 30, BingLeft: 20, Told: true, UsedWhenTold: 30}, 20, "Bing's grant of 50", ""},
		{"Bing says less, set", Quota{Daily: 100, DailyGiven: true, Used: 30, BingLeft: 20, Told: true, UsedWhenTold: 30}, 20, "Bing's grant of 50", "your bing.dailyQuota is 100"},
		{"Bing says more", Quota{Daily: 100, Used: 30, BingLeft: 9000, Told: true, UsedWhenTold: 30}, 70, byDefault, "Bing would take 9,000 more"},
		{"Bing says more, set", Quota{Daily: 100, DailyGiven: true, Used: 30, BingLeft: 9000, Told: true, UsedWhenTold: 30}, 70, "your bing.dailyQuota of 100", "Bing would take 9,000 more"},
		{"Bing says 0", Quota{Daily: 100, BingLeft: 0, Told: true}, 0, "Bing's grant of 0", ""},
		{"Bing did not tell", Quota{Daily: 100, BingLeft: 0}, 100, byDefault, "Bing has not told its grant today"},
		{"Bing said 50, and 50 went since", Quota{Daily: 100, Used: 50, BingLeft: 50, Told: true}, 0, "Bing's grant of 50", ""},
		{"Bing said 50, and 20 went since", Quota{Daily: 100, Used: 30, BingLeft: 50, Told: true, UsedWhenTold: 10}, 30, "Bing's grant of 60", ""},
		{"more went since than Bing said", Quota{Daily: 100, Used: 80, BingLeft: 50, Told: true}, 0, "Bing's grant of 80", ""},
		{"given back since Bing said", Quota{Daily: 100, Used: 10, BingLeft: 50, Told: true, UsedWhenTold: 20}, 50, "Bing's grant of 60", ""},
	} {
		if got := tc.q.Left(); got != tc.want {
			t.Errorf("%s: %+v.Left() = %d, want %d", tc.name, tc.q, got, tc.want)
		}
		if got := tc.q.Source(); got != tc.source {
			t.Errorf("%s: %+v.Source() = %q, want %q", tc.name, tc.q, got, tc.source)
		}
		if got := tc.q.Also(); got != tc.also {
			t.Errorf("%s: %+v.Also() = %q, want %q", tc.name, tc.q, got, tc.also)
		}
	}
}
