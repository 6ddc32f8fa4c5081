package feed

import (
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// TestLeftOutAgreesInNumber: the note of the new pages a preflight left out of the feed speaks of
// one page as one, and of several as several.
func TestLeftOutAgreesInNumber(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, "feed: 1 new page left out of the feed, as no engine would index it (1 noindex): each becomes an item once it answers"},
		{2, "feed: 2 new pages left out of the feed, as no engine would index them (2 noindex): each becomes an item once it answers"},
	} {
		c := &Channel{site: &config.Site{ID: "s"}}
		c.left.add(channel.Preflight{Reason: "noindex"}, tc.n)
		rep := &enginetest.Reporter{}
		c.noteLeftOut(rep)
		if notes := strings.Join(rep.Notes(), "\n"); !strings.Contains(notes, tc.want) {
			t.Errorf("%d left out: %q; want %q", tc.n, notes, tc.want)
		}
	}
}
