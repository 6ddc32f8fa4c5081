package model

import (
	"strings"
	"testing"
)

// TestLater: with a state that keeps something, what a later run takes up is said, in agreement
// with how many things it is said of; with a state that keeps nothing, no later run is promised.
func TestLater(t *testing.T) {
	kept, forgets := Later{}, Later{Forgets: true}
	for _, tc := range []struct{ got, want string }{
		{kept.Backlog(1), "taken as known: a change sends it"},
		{kept.Backlog(3), "taken as known: a change sends them"},
		{kept.Baseline(1), "taken as known: a change sends it"},
		{kept.Suspects(1), "it stays a suspect, checked again next run"},
		{kept.Suspects(2), "they stay suspects, checked again next run"},
		{kept.FirstRunOver("the chosen URLs"), "the chosen URLs wait for the site's next run over them"},
		{forgets.FirstRunOver("the chosen URLs"), "the chosen URLs are kept for no later run (state: memory)"},
		{forgets.Suspects(2), "kept for no later run (state: memory)"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
	for _, said := range []string{forgets.Again(), forgets.StayDue("x"), forgets.Held("x"), forgets.Left("x"), forgets.ReadOn(),
		forgets.Checked(), forgets.Backlog(2), forgets.Baseline(2), forgets.UntilFixed(), forgets.First("x"),
		forgets.FirstRunOver("x"), forgets.Suspects(1)} {
		for _, promise := range []string{"next run", "first run after that", "go first", "stay due"} {
			if strings.Contains(said, promise) {
				t.Errorf("with a state that keeps nothing: %q promises a later run (%q)", said, promise)
			}
		}
	}
}
