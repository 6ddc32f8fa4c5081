package runner

import (
	"slices"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// mode is what a run's options choose of its steps (doc.go), decided once as the read begins,
// with what the channels select: the steps ask it, never the options.
type mode struct {
	// writes: the run records what it reads and what each channel answers, and delivers; a dry
	// run writes nothing, and shows what each channel would send instead (preview).
	writes bool
	// chosen: the run takes the URLs a user chose instead of reading the sitemaps. The backlog
	// setting does not apply to them, and a channel whose first run needs the sitemaps (the
	// feed's newest pages) sits the run out.
	chosen bool
	// useMemos: settled memos spare the run the sitemaps and pages that did not change. Only a
	// run of the sitemaps under the ordinary rule can use them — not one forced, nor one of the
	// failed URLs — and only when no channel asks for the newest pages, which needs every page.
	useMemos bool
	// keepMemos: the run remembers what it read for the runs after: it writes, and it reads the
	// sitemaps.
	keepMemos bool
	// keepWhole: a whole read is remembered as what the sitemaps list (memos.save) — a feed's
	// first run's and a forced run's too, which use no memos — but not a read of the failed URLs
	// only: its rule passes over due URLs, which its memos would call no news.
	keepWhole bool
	// rule is the run's rule of what is due.
	rule dueRule
}

// dueRule says, from what isDue says of a URL on a channel (due; retry when its last attempt
// failed), whether a run counts the URL there at all, and whether it takes it as due.
type dueRule func(sel channel.Selection, st model.DeliveryState, due, retry bool) (counted, taken bool)

// modeOf decides a run's mode from its options and what its channels select.
func modeOf(opt Options, selection []channel.Selection) mode {
	m := mode{writes: !opt.DryRun, chosen: opt.URLs != nil}
	newest := slices.ContainsFunc(selection, func(s channel.Selection) bool { return s.Newest > 0 })
	m.useMemos = !opt.Force && !opt.RetryFailed && !m.chosen && !newest
	m.keepMemos = m.writes && !m.chosen
	m.keepWhole = m.keepMemos && !opt.RetryFailed
	m.rule = ruleOf(opt.Force, opt.RetryFailed, m.chosen)
	return m
}

// ruleOf returns the rule of what is due in a run: isDue's, unless the run is forced (every URL
// is due), of the failed URLs only, or of chosen URLs (due again when a first run recorded it
// without sending it). A channel of new URLs only (the feed) takes each URL once, whatever the
// run.
func ruleOf(force, failedOnly, chosen bool) dueRule {
	return func(sel channel.Selection, st model.DeliveryState, due, retry bool) (counted, taken bool) {
		// A run of the failed URLs leaves the others alone, and chosen URLs a channel whose first
		// run needs the sitemaps: neither counted nor delivered there.
		if failedOnly && !retry || chosen && sel.FirstRun {
			return false, false
		}
		return true, due || !sel.OnlyNew && (force || chosen && st.Unsent != "")
	}
}
