package cli

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// printURLs lists, for `run --verbose`, the URLs the run names, per channel in delivery order —
// ✓ sent, – not eligible (a preflight held it back) and why, ✗ failed and the engine's answer — and per
// channel how many it answered beyond those the record names (docs/runs.md, "The URLs of a run").
func printURLs(w io.Writer, rec *model.Record) {
	byChannel := map[string][]model.RunURL{}
	for _, u := range rec.URLs {
		byChannel[u.Channel] = append(byChannel[u.Channel], u)
	}
	for _, name := range channelNames(rec) {
		urls, st := byChannel[name], rec.Channels[name]
		more := st.Answered() - len(urls)
		if len(urls) == 0 && more <= 0 {
			continue
		}
		fmt.Fprintf(w, "  %s URLs (✓ %s, – not eligible, ✗ failed):\n", name, sentWord(name))
		for _, same := range alike(urls) {
			printSame(w, same)
		}
		if more > 0 {
			fmt.Fprintf(w, "    … and %s more not listed\n", human.Int(more))
		}
	}
}

// sentWord is what a channel did with a URL it took: the feed adds a page as an item.
func sentWord(channel string) string {
	if channel == "feed" {
		return "added"
	}
	return "sent"
}

// alike cuts URLs, sorted as a run sorts them, into runs of one outcome and one detail: an
// engine's answer or a preflight's reason is told once for the URLs it concerns.
func alike(urls []model.RunURL) [][]model.RunURL {
	var out [][]model.RunURL
	for i := 0; i < len(urls); {
		n := 1
		for i+n < len(urls) && urls[i+n].Outcome == urls[i].Outcome && urls[i+n].Detail == urls[i].Detail {
			n++
		}
		out, i = append(out, urls[i:i+n]), i+n
	}
	return out
}

// printSame prints URLs of one outcome and one detail for `run --verbose`: each with its mark, and
// why they were not sent (a preflight's reason, the engine's answer) once, above them.
func printSame(w io.Writer, urls []model.RunURL) {
	u := urls[0]
	mark, what := "✗", "failed"
	switch u.Outcome {
	case model.URLSubmitted, model.URLRemoved:
		mark = "✓"
	case model.URLIneligible:
		mark, what = "–", "not eligible"
	}
	indent := "    "
	if u.Detail != "" {
		fmt.Fprintf(w, "    %s %s (%s): %s\n", mark, what, human.Count(len(urls), "URL"), u.Detail)
		indent = "      "
	}
	for _, u := range urls {
		line := indent + mark + " " + u.URL
		if u.Outcome == model.URLRemoved {
			line += " (removal notice)"
		}
		fmt.Fprintln(w, line)
	}
}

// printDryTable lists what a dry run would do with each URL, one row a URL and a column a
// channel: ✓ would be sent, the reason a preflight would hold it back, – neither (known, not
// due there, or beyond what the channel would send now). It lists the sample of each channel and
// the URLs the record names, then per channel how many it leaves out.
func printDryTable(w io.Writer, rec *model.Record) {
	names := channelNames(rec)
	var order []string
	cells := map[string]map[string]string{}
	mark := func(url, channel, what string) {
		if cells[url] == nil {
			cells[url] = map[string]string{}
			order = append(order, url)
		}
		cells[url][channel] = what
	}
	named := map[string]int{}
	for _, name := range names {
		for _, u := range rec.Channels[name].Sample {
			mark(u, name, "✓")
		}
	}
	for _, u := range rec.URLs {
		if u.Outcome == model.URLIneligible {
			mark(u.URL, u.Channel, u.Detail)
			named[u.Channel]++
		}
	}
	if len(order) == 0 {
		return
	}
	widths := columnWidths(names, order, cells)
	row := func(url string, cell func(string) string) {
		line := "    " + pad(url, widths[0])
		for i, name := range names {
			line += "  " + pad(cell(name), widths[i+1])
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	row("URL", func(name string) string { return name })
	for _, url := range order {
		row(url, func(name string) string { return cmp.Or(cells[url][name], "–") })
	}
	for _, name := range names {
		st := rec.Channels[name]
		if more := st.WouldSend() - len(st.Sample); more > 0 {
			fmt.Fprintf(w, "    … and %s more %s would send\n", human.Int(more), name)
		}
		if more := st.Ineligible - named[name]; more > 0 {
			fmt.Fprintf(w, "    … and %s more %s would hold back\n", human.Int(more), name)
		}
	}
}

// columnWidths returns the width of the URL column, then of each channel's.
func columnWidths(names, urls []string, cells map[string]map[string]string) []int {
	widths := make([]int, len(names)+1)
	widths[0] = len("URL")
	for _, u := range urls {
		widths[0] = max(widths[0], utf8.RuneCountInString(u))
	}
	for i, name := range names {
		widths[i+1] = max(utf8.RuneCountInString(name), 1)
		for _, u := range urls {
			widths[i+1] = max(widths[i+1], utf8.RuneCountInString(cells[u][name]))
		}
	}
	return widths
}

// pad writes s left aligned in a column of width runes.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
}
