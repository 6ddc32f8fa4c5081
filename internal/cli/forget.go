package cli

import (
	"strings"

	"github.com/sitepush/sitepush/internal/model"
)

// keptNothing rewrites what rec says will happen at the next run, for a state that keeps
// nothing between runs (state: memory): no later run knows of a failure, a URL held back or a
// page left unchecked, so the record must not promise that one takes them up again.
func keptNothing(rec *model.Record) {
	for i, e := range rec.Errors {
		rec.Errors[i] = noNextRun(e)
	}
	for i, n := range rec.Notes {
		rec.Notes[i] = noNextRun(n)
	}
}

// noNextRun rewrites a message's promise of a next run (the channels' "it is tried again next
// run", "the URLs go again next run", the runner's "left for the next run"…) as what is true when
// the state keeps nothing. Any other mention of a next run is told as a later run that the state
// would have to keep.
func noNextRun(msg string) string {
	const lost = "not kept for a later run (state: memory)"
	msg = strings.NewReplacer(
		"tried again next run", lost,
		"go again next run", "are "+lost,
		"stay due for the next run", "are "+lost,
		"wait for the next run", "are "+lost,
		"checked again at the next run", lost,
		"checked again next run", lost,
		"left for the next run", "left, "+lost,
	).Replace(msg)
	later := false
	for i := strings.Index(strings.ToLower(msg), "next run"); i >= 0; i = strings.Index(strings.ToLower(msg), "next run") {
		msg, later = msg[:i]+"later run"+msg[i+len("next run"):], true
	}
	if later {
		msg += " (state: memory keeps nothing for it)"
	}
	return msg
}
