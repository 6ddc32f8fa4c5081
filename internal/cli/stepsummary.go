package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// stepSummaryURLs bounds the URLs listed per channel and outcome in a step summary: GitHub
// keeps a megabyte of it, and the run's record holds them all.
const stepSummaryURLs = 100

// writeStepSummary writes rec in Markdown, for the summary page of a GitHub Actions job
// ($GITHUB_STEP_SUMMARY, docs/ci.md "What the step tells"): the outcome, each channel's counts,
// the errors and notes, and the URLs the record names, per channel and outcome.
func writeStepSummary(w io.Writer, rec *model.Record) {
	head := rec.Status
	if rec.DryRun {
		head = "dry run, nothing submitted"
	}
	fmt.Fprintf(w, "### sitepush: site %s (%s)\n\n", markdown(rec.Site), head)
	fmt.Fprintf(w, "%s from %s", human.Count(rec.TotalURLs, "URL"), human.Count(rec.Sitemaps.Read, "sitemap"))
	if rec.Sitemaps.Failed > 0 {
		fmt.Fprintf(w, " (%s failed)", human.Int(rec.Sitemaps.Failed))
	}
	fmt.Fprintf(w, " in %s.\n\n", duration(rec.FinishedAt.Sub(rec.StartedAt)))
	writeCountsTable(w, rec)
	writeList(w, "Errors", rec.Errors)
	writeList(w, "Notes", rec.Notes)
	for _, n := range channelNames(rec) {
		writeChannelURLs(w, rec, n)
	}
}

// writeCountsTable writes a row of counts per channel: what was sent (or would be, in a dry
// run), what failed, what was not sent and why.
func writeCountsTable(w io.Writer, rec *model.Record) {
	if len(rec.Channels) == 0 {
		return
	}
	fmt.Fprintln(w, "| Channel | Due | Submitted | Failed | Already known | Older than the first run's backlog, not sent | Unchanged since the baseline, not sent | Held back by the quota | Not eligible | Left unsent |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, n := range channelNames(rec) {
		st := rec.Channels[n]
		submitted := human.Int(st.Submitted)
		if rec.DryRun {
			submitted = human.Int(st.WouldSend()) + " (would be)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", markdown(n), human.Int(st.Due), submitted,
			human.Int(st.Failed), human.Int(st.Skipped), human.Int(st.Backlog), human.Int(st.Baseline), human.Int(st.Held), human.Int(st.Ineligible), human.Int(st.Left))
	}
	fmt.Fprintln(w)
}

// writeList writes a titled bullet list of messages; nothing when there are none.
func writeList(w io.Writer, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "**%s**\n\n", title)
	for _, it := range items {
		fmt.Fprintf(w, "- %s\n", markdown(it))
	}
	fmt.Fprintln(w)
}

// outcomeRank orders the outcomes of a record's URLs as a run lists them (model.URLOutcomes); a
// dry run's sample, and an outcome not named there, come after them.
func outcomeRank(outcome string) int {
	order := model.URLOutcomes()
	if i := slices.Index(order, outcome); i >= 0 {
		return i
	}
	return len(order)
}

// outcomeTitle names a URL outcome on a channel for a person: the feed adds a page it takes.
func outcomeTitle(channel, outcome string) string {
	switch outcome {
	case model.URLFailed:
		return "Failed, with the engine's answer"
	case model.URLIneligible:
		return "Not eligible, with the preflight's reason"
	case model.URLSubmitted:
		if channel == "feed" {
			return "Added to the feed"
		}
		return "Submitted"
	case model.URLRemoved:
		return "Removal notices sent"
	}
	return strings.ToUpper(outcome[:1]) + outcome[1:]
}

// writeChannelURLs lists the URLs the record names for channel n, grouped by outcome; in a dry
// run without such a list, the sample of the URLs it would submit. Each outcome is headed by how
// many URLs had it — the channel's counter, which counts those a record does not name too.
func writeChannelURLs(w io.Writer, rec *model.Record, n string) {
	st := rec.Channels[n]
	byOutcome := map[string][]model.RunURL{}
	for _, u := range rec.URLs {
		if u.Channel == n && u.Outcome != "" {
			byOutcome[u.Outcome] = append(byOutcome[u.Outcome], u)
		}
	}
	total := map[string]int{model.URLFailed: st.Failed, model.URLIneligible: st.Ineligible,
		model.URLSubmitted: st.Submitted - len(byOutcome[model.URLRemoved]), model.URLRemoved: len(byOutcome[model.URLRemoved])}
	if len(byOutcome) == 0 && rec.DryRun && len(st.Sample) > 0 {
		for _, u := range st.Sample {
			byOutcome[wouldSubmit] = append(byOutcome[wouldSubmit], model.RunURL{URL: u})
		}
		total[wouldSubmit] = st.WouldSend()
	}
	if len(byOutcome) == 0 {
		return
	}
	fmt.Fprintf(w, "#### %s\n\n", markdown(n))
	outcomes := slices.Sorted(maps.Keys(byOutcome))
	slices.SortStableFunc(outcomes, func(a, b string) int { return outcomeRank(a) - outcomeRank(b) })
	for _, o := range outcomes {
		list := byOutcome[o]
		shown := list[:min(len(list), stepSummaryURLs)]
		fmt.Fprintf(w, "%s (%s):\n\n", outcomeTitle(n, o), human.Int(max(total[o], len(list))))
		writeURLs(w, shown)
		if more := max(total[o], len(list)) - len(shown); more > 0 {
			fmt.Fprintf(w, "- … and %s more, not listed here\n", human.Int(more))
		}
		fmt.Fprintln(w)
	}
}

// writeURLs lists URLs of one outcome; those of a detail (an engine's answer, a preflight's
// reason: the record sorts the URLs by it) under it, said once.
func writeURLs(w io.Writer, urls []model.RunURL) {
	for _, same := range alike(urls) {
		indent := ""
		if detail := same[0].Detail; detail != "" {
			fmt.Fprintf(w, "- %s (%s):\n", markdown(detail), human.Int(len(same)))
			indent = "  "
		}
		for _, u := range same {
			fmt.Fprintf(w, "%s- %s\n", indent, codeSpan(u.URL))
		}
	}
}

// wouldSubmit is the outcome of the URLs of a dry run's sample.
const wouldSubmit = "would be submitted"

// markdown escapes what Markdown would read as markup in a message (emphasis, links, HTML, a
// table's |), so that an engine's answer or a URL is shown as written.
func markdown(s string) string {
	s = markdownLine(s)
	var b strings.Builder
	// What would open a list at the start of a line ("- ", "+ ", "1986. ") is escaped too.
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	for i, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#!~&", r) || i == 0 && strings.ContainsRune("-+", r) || i == digits && digits > 0 && strings.ContainsRune(".)", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codeSpan writes a URL as Markdown code, as written: a backtick, which a URL holds only
// percent-encoded, is written so.
func codeSpan(u string) string {
	return "`" + strings.ReplaceAll(markdownLine(u), "`", "%60") + "`"
}

// markdownLine puts a text on one line.
func markdownLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
