package runner

import (
	"cmp"
	"slices"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// MaxRunURLs is how many URLs a run names per channel and outcome (Record.URLs): enough for a
// site owner to read every URL of an ordinary run, while a run of a million URLs holds, prints
// and stores a bounded list — its counters still count them all, so its page says how many more.
const MaxRunURLs = 1000

// maxDetail is how many bytes of an engine's answer a named URL keeps: the cause and its fix fit,
// an engine's whole error page does not (the run's errors keep the message too).
const maxDetail = 300

// runURLs keeps the URLs a run names, as the recorder counts outcomes: at most MaxRunURLs per
// channel and outcome. The recorder's lock guards it.
type runURLs struct {
	kept map[[2]string]int // by channel and outcome
}

// add names the URLs of o in rec, unless o sets them aside unsent (known, skipped), or their
// channel and outcome have their fill already: with a URL a preflight held back, its reason and
// what it found; with one that failed, the engine's answer.
func (l *runURLs) add(rec *model.Record, o channel.Outcome) {
	if o.Unsent != "" {
		return
	}
	if l.kept == nil {
		l.kept = map[[2]string]int{}
	}
	for _, d := range o.URLs {
		u := model.RunURL{Channel: o.Channel, URL: d.URL}
		switch {
		case o.Ineligible() && o.Preflight.Detail != "":
			// What the preflight found, after its reason: "status: HTTP 404".
			u.Outcome, u.Detail = model.URLIneligible, human.Clip(o.Preflight.Reason+": "+o.Preflight.Detail, maxDetail)
		case o.Ineligible():
			u.Outcome, u.Detail = model.URLIneligible, o.Preflight.Reason
		case o.Delivered && d.Removal:
			u.Outcome = model.URLRemoved
		case o.Delivered:
			u.Outcome = model.URLSubmitted
		default:
			u.Outcome, u.Detail = model.URLFailed, human.Clip(o.Err, maxDetail)
		}
		key := [2]string{u.Channel, u.Outcome}
		if l.kept[key] >= MaxRunURLs {
			continue
		}
		l.kept[key]++
		rec.URLs = append(rec.URLs, u)
	}
}

// SortedURLs returns a copy of the URLs a run names (Record.URLs) ordered by channel, in delivery
// order, then by outcome, as a run's page lists them, what needs a fix first; then by detail, so
// that the URLs of one engine's answer or one preflight's reason come together, and by URL. A run
// sorts its list as it ends; a run's page sorts the list of a run going, as it reads it.
func SortedURLs(urls []model.RunURL) []model.RunURL {
	urlOrder := model.URLOutcomes()
	rank := func(list []string, s string) int {
		if i := slices.Index(list, s); i >= 0 {
			return i
		}
		return len(list)
	}
	sorted := slices.Clone(urls)
	slices.SortStableFunc(sorted, func(a, b model.RunURL) int {
		return cmp.Or(rank(config.Channels, a.Channel)-rank(config.Channels, b.Channel),
			cmp.Compare(a.Channel, b.Channel), rank(urlOrder, a.Outcome)-rank(urlOrder, b.Outcome),
			cmp.Compare(a.Detail, b.Detail), cmp.Compare(a.URL, b.URL))
	})
	return sorted
}
