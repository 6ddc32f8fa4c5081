package config

import (
	"math"
	"testing"
)

// TestMetricsPerSite checks metrics.perSite: all, none or a whole number, given as a YAML number
// or as text, 500 when not given, and a message naming the key and its forms otherwise.
func TestMetricsPerSite(t *testing.T) {
	for _, tc := range []struct {
		name, top string
		sites     int
		want      string
	}{
		{"not given", "", 500, ""},
		{"empty section", "metrics: {}", 500, ""},
		{"all", "metrics: {perSite: all}", math.MaxInt, ""},
		{"none", "metrics: {perSite: none}", 0, ""},
		{"a number", "metrics: {perSite: 20}", 20, ""},
		{"a number as text", `metrics: {perSite: "20"}`, 20, ""},
		{"zero", "metrics: {perSite: 0}", 0, ""},
		{"negative", "metrics: {perSite: -1}", 0, `metrics.perSite must be all, none or a whole number of sites (0 or more), like 500; got "-1"`},
		{"a fraction", "metrics: {perSite: 2.5}", 0, `metrics.perSite must be all, none or a whole number of sites (0 or more), like 500; got "2.5"`},
		{"a word", "metrics: {perSite: some}", 0, `got "some"`},
		{"capitals", "metrics: {perSite: All}", 0, `got "All"`},
		{"a list", "metrics: {perSite: [1]}", 0, "line 1: metrics.perSite must be a single value, got a list"},
		{"a typo", "metrics: {perSites: 5}", 0, `line 1: unknown key "perSites" in metrics (known: perSite); did you mean "perSite"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parse(tc.top+"\n"+siteDoc(""), nil)
			checkErr(t, err, tc.want)
			if err == nil && c.Metrics.Sites() != tc.sites {
				t.Errorf("%s: Sites() = %d, want %d", tc.top, c.Metrics.Sites(), tc.sites)
			}
		})
	}
}
