package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// printRecord prints a run for a person: the outcome, the counts, the errors with their fixes.
func printRecord(w io.Writer, rec *model.Record) {
	head := rec.Status
	if rec.DryRun {
		head = "dry run, nothing submitted"
	}
	if rec.Trigger == "manual" && rec.Sitemaps.Read+rec.Sitemaps.Failed == 0 {
		fmt.Fprintf(w, "site %s (%s): %s chosen", rec.Site, head, plural(rec.TotalURLs, "URL"))
	} else {
		fmt.Fprintf(w, "site %s (%s): %s URLs from %s", rec.Site, head, count(rec.TotalURLs), plural(rec.Sitemaps.Read, "sitemap"))
	}
	if rec.Sitemaps.Failed > 0 {
		fmt.Fprintf(w, " (%d failed)", rec.Sitemaps.Failed)
	}
	fmt.Fprintf(w, " in %s", duration(rec.FinishedAt.Sub(rec.StartedAt)))
	if rec.Filtered > 0 {
		fmt.Fprintf(w, "; %s outside baseUrl or the include/exclude globs", count(rec.Filtered))
	}
	fmt.Fprintln(w)
	// The channels in delivery order, then any other in name order.
	names := slices.Clone(config.Channels)
	for _, n := range slices.Sorted(maps.Keys(rec.Channels)) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, n := range names {
		if st, ok := rec.Channels[n]; ok {
			printChannel(w, n, st, rec.DryRun)
		}
	}
	for _, n := range rec.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, e := range rec.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
}

// printChannel prints a channel's counts: for the feed, pages added as items and pages known.
func printChannel(w io.Writer, name string, st *model.ChannelStats, dryRun bool) {
	done, skipped := "submitted", "already delivered"
	if name == "feed" {
		done, skipped = "added", "known"
	}
	if dryRun {
		fmt.Fprintf(w, "  %s: %s would be %s", name, count(st.Due-st.Held), done)
		if st.Held > 0 {
			fmt.Fprintf(w, ", %s held back by the quota", count(st.Held))
		}
		fmt.Fprintf(w, ", %s %s\n", count(st.Skipped), skipped)
		for _, u := range st.Sample {
			fmt.Fprintf(w, "    %s\n", u)
		}
		if more := st.Due - st.Held - len(st.Sample); more > 0 {
			fmt.Fprintf(w, "    … and %s more\n", count(more))
		}
		return
	}
	fmt.Fprintf(w, "  %s: %s due, %s %s, %s failed, %s %s", name, count(st.Due), count(st.Submitted), done, count(st.Failed), count(st.Skipped), skipped)
	if st.Held > 0 {
		fmt.Fprintf(w, ", %s held back by the quota", count(st.Held))
	}
	if st.Left > 0 {
		fmt.Fprintf(w, ", %s left for the next run", count(st.Left))
	}
	fmt.Fprintln(w)
	eps := make([]string, 0, len(st.Endpoints))
	for e := range st.Endpoints {
		eps = append(eps, e)
	}
	sort.Strings(eps)
	for _, e := range eps {
		s := st.Endpoints[e]
		fmt.Fprintf(w, "    %s: %s, %d accepted, %d failed, %.0f ms average\n", e, plural(s.Requests, "request"), s.Accepted, s.Failed, s.AvgResponseMS)
	}
}

// duration writes d for a person: 3ms, 1.25s, 2m3s.
func duration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "under 1ms"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// count writes n with thousands separators: 1,000,000.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return count(n) + " " + word + "s"
}

// progress redraws one line on a terminal while a long run goes on; elsewhere it stays silent.
type progress struct {
	w     io.Writer
	on    bool
	mu    sync.Mutex
	last  time.Time
	shown bool
}

func newProgress(w io.Writer) *progress { return &progress{w: w, on: isTerminal(w)} }

// show draws the state of a run, at most five times a second.
func (p *progress) show(rec *model.Record) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "\r\033[K%s: %s URLs read", rec.Site, count(rec.TotalURLs))
	for n, st := range rec.Channels {
		fmt.Fprintf(&b, " · %s %s/%s", n, count(st.Submitted+st.Failed), count(st.Due))
	}
	fmt.Fprintf(&b, " · %s", time.Since(rec.StartedAt).Round(time.Second))
	io.WriteString(p.w, b.String())
	p.shown = true
}

// clear removes the progress line before a summary is printed.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		io.WriteString(p.w, "\r\033[K")
		p.shown = false
	}
}
