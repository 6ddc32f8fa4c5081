package cli

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// printRecord prints a run for a person: the outcome, the counts, the errors with their fixes;
// later words what becomes of what the run left undone.
func printRecord(w io.Writer, rec *model.Record, later model.Later) {
	head := rec.Status
	if rec.DryRun {
		head = "dry run, nothing submitted"
	}
	if rec.Trigger == "manual" && rec.Sitemaps.Read+rec.Sitemaps.Failed == 0 {
		fmt.Fprintf(w, "site %s (%s): %s chosen", rec.Site, head, human.Count(rec.TotalURLs, "URL"))
	} else {
		fmt.Fprintf(w, "site %s (%s): %s from %s", rec.Site, head, human.Count(rec.TotalURLs, "URL"), human.Count(rec.Sitemaps.Read, "sitemap"))
	}
	if rec.Sitemaps.Failed > 0 {
		fmt.Fprintf(w, " (%s failed)", human.Int(rec.Sitemaps.Failed))
	}
	fmt.Fprintf(w, " in %s", duration(rec.FinishedAt.Sub(rec.StartedAt)))
	if rec.Filtered > 0 {
		fmt.Fprintf(w, "; %s outside baseUrl or the include/exclude globs", human.Int(rec.Filtered))
	}
	fmt.Fprintln(w)
	printChanges(w, rec.Changes, later)
	for _, n := range channelNames(rec) {
		printChannel(w, n, rec.Channels[n], rec.DryRun, later)
	}
	if rec.DryRun {
		printDryTable(w, rec)
	}
	for _, n := range rec.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, e := range rec.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
}

// channelNames are the channels of rec in the order of every list of channels a person reads.
func channelNames(rec *model.Record) []string {
	return channelOrder(slices.Collect(maps.Keys(rec.Channels)))
}

// channelOrder sorts channel names in delivery order (config.Channels), then any other by name.
func channelOrder(names []string) []string {
	rank := func(n string) int {
		if i := slices.Index(config.Channels, n); i >= 0 {
			return i
		}
		return len(config.Channels)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := rank(a) - rank(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return names
}

// printChannel prints a channel's counts (for the feed, pages added as items), in the words of
// docs/runs.md, "The execution record"; later words what becomes of those left.
func printChannel(w io.Writer, name string, st *model.ChannelStats, dryRun bool, later model.Later) {
	done := "submitted"
	if name == "feed" {
		done = "added"
	}
	if dryRun {
		fmt.Fprintf(w, "  %s: %s would be %s", name, human.Int(st.WouldSend()), done)
		printIneligible(w, st)
		if st.Held > 0 {
			fmt.Fprintf(w, ", %s held back by the quota", human.Int(st.Held))
		}
		if st.Left > 0 {
			fmt.Fprintf(w, ", %s", later.Left(human.Int(st.Left)+" left"))
		}
		fmt.Fprintf(w, ", %s\n", notSent(st))
		return
	}
	fmt.Fprintf(w, "  %s: %s due, %s %s, %s failed, %s", name, human.Int(st.Due), human.Int(st.Submitted), done, human.Int(st.Failed), notSent(st))
	printIneligible(w, st)
	if st.Held > 0 {
		fmt.Fprintf(w, ", %s held back by the quota", human.Int(st.Held))
	}
	if st.Left > 0 {
		fmt.Fprintf(w, ", %s", later.Left(human.Int(st.Left)+" left"))
	}
	if st.ThrottledMS > 0 {
		fmt.Fprintf(w, ", throttled %s", seconds(time.Duration(st.ThrottledMS)*time.Millisecond))
	}
	fmt.Fprintln(w)
	for _, e := range slices.Sorted(maps.Keys(st.Endpoints)) {
		s := st.Endpoints[e]
		fmt.Fprintf(w, "    %s: %s, %s accepted, %s failed", e, human.Count(s.Requests, "request"), human.Int(s.Accepted), human.Int(s.Failed))
		switch {
		// Tries again after a 429 or a 5xx: waits, not failures.
		case s.Retries == 1:
			fmt.Fprint(w, ", 1 retry")
		case s.Retries > 1:
			fmt.Fprintf(w, ", %s retries", human.Int(s.Retries))
		}
		fmt.Fprintf(w, ", %s ms average\n", human.Int(int(math.Round(s.AvgResponseMS))))
	}
}

// notSent says what of a channel's URLs was not due: those already known (skipped), and those
// taken as known in this run without being sent — a first run's backlog, a baseline's.
func notSent(st *model.ChannelStats) string {
	out := human.Int(st.Skipped) + " already known"
	if st.Backlog > 0 {
		out += fmt.Sprintf(", %s older than the first run's backlog, not sent", human.Int(st.Backlog))
	}
	if st.Baseline > 0 {
		out += fmt.Sprintf(", %s unchanged since the baseline, not sent", human.Int(st.Baseline))
	}
	return out
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

// seconds writes a wait for a person, as engines ask for them: 250 ms, 60 s, 2m30s.
func seconds(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%s ms", human.Int(int(d.Round(time.Millisecond).Milliseconds())))
	case d < 2*time.Minute:
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	}
	return d.Round(time.Second).String()
}

// ineligibleBy says the URLs a preflight held back by reason, most first: "2 noindex, 1 status".
func ineligibleBy(st *model.ChannelStats) string {
	reasons := slices.Sorted(maps.Keys(st.IneligibleBy))
	slices.SortStableFunc(reasons, func(a, b string) int { return st.IneligibleBy[b] - st.IneligibleBy[a] })
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%s %s", human.Int(st.IneligibleBy[r]), r)
	}
	return strings.Join(parts, ", ")
}

// printIneligible prints the URLs a preflight held back, by reason, most first: ", 3 not
// eligible: 2 noindex, 1 status".
func printIneligible(w io.Writer, st *model.ChannelStats) {
	if st.Ineligible == 0 {
		return
	}
	fmt.Fprintf(w, ", %s not eligible: %s", human.Int(st.Ineligible), ineligibleBy(st))
}

// printChanges prints what a run's content checks found (docs/runs.md, "What changed"): "checked
// 200 pages: 3 changed, 197 the same (150 not modified)".
func printChanges(w io.Writer, c *model.Changes, later model.Later) {
	if c == nil {
		return
	}
	var parts []string
	if c.Changed > 0 || c.Same > 0 {
		parts = append(parts, fmt.Sprintf("%s changed", human.Int(c.Changed)))
		same := human.Int(c.Same) + " the same"
		if c.NotModified > 0 {
			same += fmt.Sprintf(" (%s not modified)", human.Int(c.NotModified))
		}
		parts = append(parts, same)
	}
	if c.First > 0 {
		parts = append(parts, fmt.Sprintf("%s checked for the first time", human.Int(c.First)))
	}
	if c.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%s could not be read", human.Int(c.Failed)))
	}
	if c.Left > 0 {
		parts = append(parts, later.Left(human.Count(c.Left, "suspect")+" left"))
	}
	fmt.Fprintf(w, "  content: checked %s", human.Count(c.Checked, "page"))
	if len(parts) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
}
