package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// printAnnotations prints GitHub Actions workflow commands for what a person must not miss of
// rec (docs/ci.md, "What the step tells"): an ::error per error of the run — the engine's
// answer and the fix, as the record says them — and a ::warning per channel that held URLs
// back. GitHub shows them on the run's page, where a failed step's log is not read.
func printAnnotations(w io.Writer, rec *model.Record) {
	title := "sitepush: site " + rec.Site
	for _, e := range rec.Errors {
		annotation(w, "error", title, e)
	}
	if len(rec.Errors) == 0 && !slices.Contains(model.GoodStatuses(), rec.Status) {
		annotation(w, "error", title, fmt.Sprintf("the run ended %s: see the summary above", rec.Status))
	}
	for _, n := range channelNames(rec) {
		for _, msg := range heldBack(n, rec.Channels[n], rec.Stopped) {
			annotation(w, "warning", title, msg)
		}
	}
}

// heldBack says of a channel's URLs those that were due and not sent, and why: a quota, a
// preflight, the run's end — or, in a run that did not stop (stopped), what happened: a first run
// waiting for a whole read, a channel that could not start. None is a failure; each is worth a look.
func heldBack(name string, st *model.ChannelStats, stopped bool) []string {
	var out []string
	if st.Held > 0 {
		out = append(out, fmt.Sprintf("%s: %s held back by the quota, not sent", name, human.Count(st.Held, "URL")))
	}
	if st.Ineligible > 0 {
		out = append(out, fmt.Sprintf("%s: %s not eligible, not sent (%s)", name, human.Count(st.Ineligible, "URL"), ineligibleBy(st)))
	}
	if st.Left > 0 {
		left := fmt.Sprintf("%s: %s left unsent", name, human.Count(st.Left, "URL"))
		if stopped {
			left += " when the run stopped"
		}
		out = append(out, left)
	}
	return out
}

// annotation prints one workflow command: ::LEVEL title=TITLE::MESSAGE. Its data are escaped
// as GitHub's workflow commands want (%, CR, LF; and in a property : and , too), so that what a
// record quotes — an engine's answer, a URL — can neither end the command nor start another.
func annotation(w io.Writer, level, title, msg string) {
	data := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	property := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	fmt.Fprintf(w, "::%s title=%s::%s\n", level, property.Replace(title), data.Replace(msg))
}
