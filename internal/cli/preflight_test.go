package cli

import (
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/model"
)

// TestSummaryTellsIneligible: the summary counts the URLs a preflight held back, by reason, most
// first, and leaves them out of what would be submitted.
func TestSummaryTellsIneligible(t *testing.T) {
	st := &model.ChannelStats{Due: 43, Ineligible: 3, IneligibleBy: map[string]int{"status": 1, "noindex": 2}}
	var b strings.Builder
	printChannel(&b, "bing", st, true, model.Later{})
	if want := "  bing: 40 would be submitted, 3 not eligible: 2 noindex, 1 status, 0 already known\n"; b.String() != want {
		t.Errorf("dry run: %q, want %q", b.String(), want)
	}
	b.Reset()
	st.Submitted = 40
	printChannel(&b, "bing", st, false, model.Later{})
	if !strings.Contains(b.String(), "40 submitted, 0 failed, 0 already known, 3 not eligible: 2 noindex, 1 status") {
		t.Errorf("run: %q", b.String())
	}
}
