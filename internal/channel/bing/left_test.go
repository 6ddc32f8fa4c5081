package bing

import "testing"

// TestQuotaLeft checks the one rule: the smaller of dailyQuota and what Bing said, each less what
// was used since, and none once Bing refused; and the words that say where the number comes from.
func TestQuotaLeft(t *testing.T) {
	for _, tc := range []struct {
		name   string
		q      Quota
		want   int
		source string
	}{
		{"nothing used", Quota{Daily: 100}, 100, "dailyQuota 100"},
		{"some used", Quota{Daily: 100, Used: 30}, 70, "dailyQuota 100"},
		{"more used than the quota (lowered meanwhile)", Quota{Daily: 100, Used: 130}, 0, "dailyQuota 100"},
		{"Bing refused for quota", Quota{Daily: 100, Used: 30, Full: true}, 0, "Bing refused more today (quota exceeded)"},
		{"Bing says less", Quota{Daily: 100, Used: 30, BingLeft: 20, Told: true, UsedWhenTold: 30}, 20, "Bing says 20 left today"},
		{"Bing says more", Quota{Daily: 100, Used: 30, BingLeft: 9000, Told: true, UsedWhenTold: 30}, 70, "dailyQuota 100"},
		{"Bing says 0", Quota{Daily: 100, BingLeft: 0, Told: true}, 0, "Bing says 0 left today"},
		{"Bing did not tell", Quota{Daily: 100, BingLeft: 0}, 100, "dailyQuota 100"},
		{"Bing said 50, and 50 went since", Quota{Daily: 100, Used: 50, BingLeft: 50, Told: true}, 0, "Bing says 0 left today"},
		{"Bing said 50, and 20 went since", Quota{Daily: 100, Used: 30, BingLeft: 50, Told: true, UsedWhenTold: 10}, 30, "Bing says 30 left today"},
		{"more went since than Bing said", Quota{Daily: 100, Used: 80, BingLeft: 50, Told: true}, 0, "Bing says 0 left today"},
		{"given back since Bing said", Quota{Daily: 100, Used: 10, BingLeft: 50, Told: true, UsedWhenTold: 20}, 50, "Bing says 50 left today"},
	} {
		if got := tc.q.Left(); got != tc.want {
			t.Errorf("%s: %+v.Left() = %d, want %d", tc.name, tc.q, got, tc.want)
		}
		if got := tc.q.Source(); got != tc.source {
			t.Errorf("%s: %+v.Source() = %q, want %q", tc.name, tc.q, got, tc.source)
		}
	}
}
