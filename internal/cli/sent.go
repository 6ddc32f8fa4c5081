package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
)

// maxListed is how many URLs `run --verbose` lists per channel and site: a run of a million URLs
// is listed in part, with a count of the rest, and holds no more than this in memory.
const maxListed = 10000

// sentURLs keeps the URLs each channel sent in one site's run, as they are recorded, for
// `run --verbose`. Its methods are safe for concurrent use.
type sentURLs struct {
	mu       sync.Mutex
	channels map[string]*sentList
}

// sentList is what one channel sent: the first maxListed URLs, and how many more.
type sentList struct {
	urls []sentURL
	more int
}

// sentURL is one URL a channel sent, and how it went.
type sentURL struct {
	url      string
	ok       bool
	rejected bool // refused for good: not sent again until it changes
}

func newSentURLs() *sentURLs { return &sentURLs{channels: map[string]*sentList{}} }

// outcome takes an outcome as the run records it (runner.Runner.OnOutcome). URLs set aside
// without being sent (a feed's first run) are no part of it.
func (s *sentURLs) outcome(_ string, o channel.Outcome) {
	if o.Unsent != "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.channels[o.Channel]
	if l == nil {
		l = &sentList{}
		s.channels[o.Channel] = l
	}
	for _, d := range o.URLs {
		if len(l.urls) >= maxListed {
			l.more++
			continue
		}
		l.urls = append(l.urls, sentURL{url: d.URL, ok: o.Delivered, rejected: o.Rejected})
	}
}

// print lists the URLs sent, per channel in delivery order — ✓ accepted, ✗ failed — and forgets
// them, for the next site.
func (s *sentURLs) print(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range channelOrder(slices.Collect(maps.Keys(s.channels))) {
		l := s.channels[name]
		what := "URLs sent (✓ accepted, ✗ failed)"
		if name == "feed" {
			what = "pages added (✓ added, ✗ failed)"
		}
		fmt.Fprintf(w, "  %s %s:\n", name, what)
		for _, u := range l.urls {
			switch {
			case u.ok:
				fmt.Fprintf(w, "    ✓ %s\n", u.url)
			case u.rejected:
				fmt.Fprintf(w, "    ✗ %s (refused: not sent again until it changes)\n", u.url)
			default:
				fmt.Fprintf(w, "    ✗ %s\n", u.url)
			}
		}
		if l.more > 0 {
			fmt.Fprintf(w, "    … and %s more\n", human.Int(l.more))
		}
	}
	clear(s.channels)
}
