package kvstate

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// RecordOutcome keeps what a channel did with some URLs, and counts it in the day's statistics:
// in memory, written when the run finishes. A failure keeps the lastmod and time of the last
// success, and what was sent; a URL delivered, rejected or taken as known without being sent
// (Unsent: no delivery, no attempt) takes the page's content as what was sent; a rejected URL is
// kept like a delivered one, so that it is not due again until it changes. A URL a preflight held
// back is kept as ineligible, with the lastmod checked, so that only a change or preflightAfter
// makes it due again — or as a failure, due at the next run, when the verdict may change by itself
// (a 5xx, no answer); nothing was sent, so nothing is counted.
func (s *State) RecordOutcome(ctx context.Context, site string, now time.Time, o channel.Outcome) (err error) {
	defer failed(&err, "recording an outcome", site)
	if len(o.URLs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	for _, due := range o.URLs {
		sh, err := s.shardFor(ctx, st, due.Hash)
		if err != nil {
			return err
		}
		e := sh.entries[due.Hash]
		if e == nil {
			e = &entry{url: due.URL, lastmod: ms(due.Lastmod), firstSeen: now.UnixMilli(), lastSeen: now.UnixMilli()}
			sh.entries[due.Hash] = e
			s.entries++
		}
		record(e, o, due, now)
		sh.dirty = true
	}
	if err := s.makeRoom(ctx, st); err != nil {
		return err
	}
	if o.Unsent != "" || o.Ineligible() {
		return nil
	}
	ok, bad := len(o.URLs), 0
	if !o.Delivered {
		ok, bad = 0, len(o.URLs)
	}
	return s.add(ctx, st, now, o.Channel, "", 0, ok, bad)
}

// record applies one outcome to one URL's record of the outcome's channel.
func record(e *entry, o channel.Outcome, due channel.Due, now time.Time) {
	d := e.of(o.Channel)
	if d == nil {
		e.del = append(e.del, delivery{channel: o.Channel})
		d = &e.del[len(e.del)-1]
	} else if d.outcome != outcomeFailed && d.outcome != outcomeRejected {
		d.attempts = 0 // attempts count from the last success
	}
	d.attempts++
	d.lastAttempt, d.lastError = now.UnixMilli(), o.Err
	switch {
	case o.Ineligible() && o.Preflight.Again:
		d.outcome, d.lastError = outcomeFailed, o.Preflight.ForNow()
	case o.Ineligible():
		d.outcome, d.lastmod, d.attempts, d.lastError = outcomeIneligible, ms(due.Lastmod), 1, o.Preflight.Reason+": "+o.Preflight.Detail
	case o.Rejected:
		d.outcome, d.lastmod, d.deliveredAt, d.sent = outcomeRejected, ms(due.Lastmod), now.UnixMilli(), e.content()
	case o.Unsent != "":
		// No delivery and no attempt: one the channel had delivered before keeps its last delivery.
		d.outcome, d.lastmod, d.attempts, d.lastError, d.sent = unsentOutcome(o.Unsent), ms(due.Lastmod), 0, "", e.content()
	case o.Delivered:
		d.outcome, d.lastmod, d.deliveredAt, d.lastError, d.sent = outcomeOK, ms(due.Lastmod), now.UnixMilli(), "", e.content()
	default:
		d.outcome = outcomeFailed
	}
}

// unsentOutcome is the outcome of URLs taken as known without being sent, by their word
// (channel.Outcome.Unsent): outcomeBaseline, else outcomeBacklog.
func unsentOutcome(word string) byte {
	if word == model.UnsentBaseline {
		return outcomeBaseline
	}
	return outcomeBacklog
}

// unsentWord is the word of an outcome of a URL never sent (unsentOutcome's), "" for any other.
func unsentWord(outcome byte) string {
	switch outcome {
	case outcomeBacklog:
		return model.UnsentBacklog
	case outcomeBaseline:
		return model.UnsentBaseline
	}
	return ""
}
