package feed

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/human"
)

// leftOut counts the new pages a preflight left out of the feed in a run, by why: the run's
// record says what was left out, and when it is checked again.
type leftOut struct {
	mu     sync.Mutex
	byWhy  map[string]int // not indexable: "noindex", "HTTP 404", "redirect"…
	again  int            // no answer for now: a 5xx, a timeout
	sample string         // the detail of one of again
}

// add counts the pages of an outcome a preflight held back.
func (l *leftOut) add(p channel.Preflight, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p.Again {
		l.again += n
		l.sample = p.Detail
		return
	}
	why := p.Reason
	if p.Reason == channel.NotStatus {
		why = p.Detail // "HTTP 404" says more than "status"
	}
	if l.byWhy == nil {
		l.byWhy = map[string]int{}
	}
	l.byWhy[why] += n
}

// noteLeftOut says how many new pages the preflight left out of the feed, why, and when each is
// checked again.
func (c *Channel) noteLeftOut(rep channel.Reporter) {
	l := &c.left
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := sum(l.byWhy); n > 0 {
		whys := slices.SortedFunc(maps.Keys(l.byWhy), func(a, b string) int {
			return cmp.Or(cmp.Compare(l.byWhy[b], l.byWhy[a]), cmp.Compare(a, b))
		})
		parts := make([]string, len(whys))
		for i, w := range whys {
			parts[i] = fmt.Sprintf("%d %s", l.byWhy[w], w)
		}
		them := "them"
		if n == 1 {
			them = "it"
		}
		rep.Noted(name, fmt.Sprintf("%s left out of the feed, as no engine would index %s (%s): each becomes an item once it "+
			"answers 200 without noindex, checked again when its lastmod changes or once preflightAfter (%v) has passed",
			human.Count(n, "new page"), them, strings.Join(parts, ", "), c.site.PreflightWait(name)))
	}
	if l.again > 0 {
		rep.Noted(name, fmt.Sprintf("%s left out of the feed for now, as the site did not answer (%s): %s",
			human.Count(l.again, "new page"), l.sample, rep.Later().Checked()))
	}
	if c.checker != nil && c.checker.Spent() {
		rep.Noted(name, preflight.SpentNote)
	}
}

// sum adds the counts of m up.
func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
