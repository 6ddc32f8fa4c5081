package bing

import "testing"

func TestQuotaLeft(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    Quota
		want int
	}{
		{"nothing used", Quota{Daily: 100}, 100},
		{"some used", Quota{Daily: 100, Used: 30}, 70},
		{"more used than the quota (lowered meanwhile)", Quota{Daily: 100, Used: 130}, 0},
		{"Bing refused for quota", Quota{Daily: 100, Used: 30, Full: true}, 0},
		{"Bing says less", Quota{Daily: 100, Used: 30, BingLeft: 20, Told: true}, 20},
		{"Bing says more", Quota{Daily: 100, Used: 30, BingLeft: 9000, Told: true}, 70},
		{"Bing says 0", Quota{Daily: 100, BingLeft: 0, Told: true}, 0},
		{"Bing did not tell", Quota{Daily: 100, BingLeft: 0}, 100},
	} {
		if got := tc.q.Left(); got != tc.want {
			t.Errorf("%s: %+v.Left() = %d, want %d", tc.name, tc.q, got, tc.want)
		}
	}
}
