package statetest

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// testDue: a state's reads are filters that miss no URL the runner's one rule of what is due
// (runner.DueReason) calls due. The runner decides; a state only finds candidates, and may find
// more than are due, never fewer. Randomized histories, each from a seed, play runs as the runner
// makes them: the pages of three sitemaps change (lastmods that move on or not, pages that leave
// and come back), every channel answers each URL due there as an engine may
// (accepted, failed, rejected, held back by a preflight, skipped as backlog, or not at all, as
// under a quota), times advance on a grid of hours so that the boundaries of resubmitAfter and
// of preflight rechecks are met exactly, and runs use memos of the sitemaps when the last run
// settled them, or not. In a run that uses memos, a page of a sitemap that did not change is
// not looked up: it is due only if PendingDeliveries returns it. Each such page DueReason calls
// due, given the state's own DeliveryState of it, must be among what PendingDeliveries
// returned, with that same state. Lastmods only move on: a sitemap that goes back to what an
// older memo holds is not played, as no filter of delivery states could find a URL held back by
// a preflight whose lastmod went back (DueChanged): only a lookup does.
func testDue(t *testing.T, b Backend) {
	s := b.Open(t)
	for seed := range uint64(48) {
		s = dueHistory(t, b, s, seed)
	}
}

// duePage is a page of a randomized history: which of the sitemaps lists it, its lastmod now,
// and whether it is listed at all.
type duePage struct {
	channel.Page
	sitemap int
	present bool
}

// dueAnswers are how a channel may answer a URL due there, by weight: accepted most often; "" is
// no answer at all (a quota held the URL back).
var dueAnswers = []string{"accepted", "accepted", "accepted", "failed", "rejected", "ineligible", "again", "backlog", ""}

// dueHistory plays one randomized history on a site of its own in s, a state of b, and fails the
// test where the state's reads miss a URL due. It returns the state's last view.
func dueHistory(t *testing.T, b Backend, s State, seed uint64) State {
	r := rand.New(rand.NewPCG(seed, 35))
	site := fmt.Sprint("seed-", seed)
	channels := []string{"indexnow", "bing", "feed"}
	// The feed announces a page once; another channel does so too, now and then.
	onlyNew := []bool{r.IntN(4) == 0, false, true}
	hours := func(choices ...int) time.Duration { return time.Duration(choices[r.IntN(len(choices))]) * time.Hour }
	now := t0
	pages := make([]duePage, 24)
	urls := map[int64]string{}
	for i := range pages {
		p := duePage{Page: page(int64(r.Uint64()), time.Time{}), sitemap: r.IntN(3), present: r.IntN(8) != 0}
		if r.IntN(4) != 0 {
			p.Lastmod = now.Add(-hours(1, 2, 24, 100))
		}
		pages[i], urls[p.Hash] = p, p.URL
	}
	// memo is, by sitemap, the pages (hash to lastmod) as the last settled run found them: nil
	// before one did.
	var memo []map[int64]time.Time
	for round := range 40 {
		now = now.Add(hours(1, 1, 2, 6, 24, 48, 72))
		if r.IntN(5) == 0 {
			s = b.Reopen(t, s)
		}
		for i := range pages {
			p := &pages[i]
			switch r.IntN(8) {
			case 0: // the page changed, and says so
				lm := now.Add(-hours(0, 1))
				if !lm.After(p.Lastmod) {
					lm = p.Lastmod.Add(time.Hour)
				}
				p.Lastmod = lm
			case 1:
				p.present = !p.present
			}
		}
		content := make([]map[int64]time.Time, 3)
		for k := range content {
			content[k] = map[int64]time.Time{}
		}
		for _, p := range pages {
			if p.present {
				content[p.sitemap][p.Hash] = p.Lastmod
			}
		}
		resubmitAfter := hours(0, 24, 48, 72)
		wait := map[string]time.Duration{}
		q := model.PendingQuery{Failed: channels, Now: now, ResubmitAfter: resubmitAfter, Recheck: map[string]time.Time{}}
		for c, name := range channels {
			wait[name] = hours(0, 1, 24, 48)
			q.Recheck[name] = now.Add(-wait[name])
			if !onlyNew[c] {
				q.Resubmit = append(q.Resubmit, name)
			}
		}
		useMemos := memo != nil && r.IntN(4) != 0
		// As the runner does, a run that uses memos asks for the outstanding deliveries first,
		// then syncs the pages of the sitemaps that changed; the test then looks up the pages
		// of those that did not, to know what was due there.
		pending := map[string]model.DeliveryState{}
		if useMemos {
			found, err := s.PendingDeliveries(ctx, site, q)
			must(t, err)
			for _, p := range found {
				pending[fmt.Sprint(p.Hash, p.Channel)] = p.State
			}
		}
		var synced, memoed []channel.Page
		for _, p := range pages {
			switch {
			case !p.present:
			case useMemos && maps.Equal(content[p.sitemap], memo[p.sitemap]):
				memoed = append(memoed, channel.Page{Hash: p.Hash, Lastmod: p.Lastmod})
			default:
				synced = append(synced, p.Page)
			}
		}
		states := sync(t, s, site, now, synced, channels)
		looked := sync(t, s, site, now, memoed, channels)
		due := map[[2]int][]channel.Due{} // by channel and answer
		take := func(p channel.Page, c int, st model.DeliveryState) {
			if runner.DueReason(st, p, resubmitAfter, wait[channels[c]], now, onlyNew[c]) == "" {
				return
			}
			key := [2]int{c, r.IntN(len(dueAnswers))}
			due[key] = append(due[key], channel.Due{Hash: p.Hash, URL: urls[p.Hash], Lastmod: p.Lastmod})
		}
		for i, p := range synced {
			for c := range channels {
				take(p, c, states[i*len(channels)+c])
			}
		}
		for i, p := range memoed {
			for c, name := range channels {
				st := looked[i*len(channels)+c]
				why := runner.DueReason(st, p, resubmitAfter, wait[name], now, onlyNew[c])
				if got, ok := pending[fmt.Sprint(p.Hash, name)]; why != "" && (!ok || got != st) {
					t.Fatalf("history %d, round %d at %s: URL %d, in a sitemap that did not change, is due on %s (%s) with state %+v (lastmod %s, resubmitAfter %s, preflightWait %s); PendingDeliveries(%+v) returned it: %t, with state %+v",
						seed, round, now.Format(time.DateTime), p.Hash, name, why, st, p.Lastmod.Format(time.DateTime), resubmitAfter, wait[name], q, ok, got)
				}
				take(p, c, st)
			}
		}
		settled := true
		for _, key := range slices.SortedFunc(maps.Keys(due), func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) }) {
			o := channel.Outcome{Channel: channels[key[0]], URLs: due[key]}
			switch dueAnswers[key[1]] {
			case "accepted":
				o.Delivered = true
			case "failed":
				o.Err = "HTTP 503"
			case "rejected":
				o.Rejected, o.Err = true, "InvalidUrl"
			case "ineligible":
				o.Preflight = &channel.Preflight{Reason: channel.NotNoindex, Detail: "X-Robots-Tag: noindex"}
			case "again":
				o.Preflight = &channel.Preflight{Reason: channel.NotStatus, Detail: "HTTP 503", Again: true}
			case "backlog":
				o.Unsent = model.UnsentBacklog
			default:
				settled = false
				continue
			}
			// Most answers come as the run starts, on the grid; some a second later.
			must(t, s.RecordOutcome(ctx, site, now.Add(time.Duration(r.IntN(2))*time.Second), o))
		}
		if !settled {
			continue // the memos stay as they were: the next run finds again what was held back
		}
		memo = content
		if rs, ok := s.(runner.ResubmitSettler); ok && useMemos {
			must(t, rs.SettleResubmits(ctx, site, q))
		}
	}
	return s
}
