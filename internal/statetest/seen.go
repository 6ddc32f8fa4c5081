package statetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// testIneligible: a URL a preflight held back is kept ineligible, with the lastmod checked and
// when, and its last delivery; one held back by a verdict that may change by itself (a 5xx) is a
// failure; PendingDeliveries finds the ineligible ones once their check is old enough; the day's
// statistics count only what was sent.
func testIneligible(t *testing.T, b Backend) {
	s := b.Open(t)
	lm := t0.Add(-time.Hour)
	pages := []channel.Page{page(1, lm), page(2, lm), page(3, lm), page(1<<62, lm)}
	sync(t, s, "a", t0, pages, nil)
	due := func(i int) []channel.Due { return []channel.Due{{Hash: pages[i].Hash, URL: pages[i].URL, Lastmod: lm}} }
	record := func(at time.Time, o channel.Outcome) {
		t.Helper()
		o.Channel = "bing"
		must(t, s.RecordOutcome(ctx, "a", at, o))
	}
	// The first was delivered once, before its page said noindex.
	record(t0.Add(-48*time.Hour), channel.Outcome{URLs: []channel.Due{{Hash: pages[0].Hash, URL: pages[0].URL}}, Delivered: true})
	record(t0, channel.Outcome{URLs: due(0), Preflight: &channel.Preflight{Reason: channel.NotNoindex, Detail: "X-Robots-Tag: noindex"}})
	record(t0, channel.Outcome{URLs: due(1), Preflight: &channel.Preflight{Reason: channel.NotStatus, Detail: "HTTP 503", Again: true}})
	record(t0, channel.Outcome{URLs: due(2), Delivered: true, Preflight: &channel.Preflight{}})
	record(t0.Add(time.Hour), channel.Outcome{URLs: due(3), Preflight: &channel.Preflight{Reason: channel.NotCanonical, Detail: "https://a.example/"}})
	s = b.Reopen(t, s)

	got := sync(t, s, "a", t0, pages, []string{"bing"})
	want := []model.DeliveryState{
		{Known: true, Lastmod: lm, DeliveredAt: t0.Add(-48 * time.Hour), Ineligible: true, CheckedAt: t0},
		{Known: true, Failed: true, Failures: 1},
		{Known: true, Lastmod: lm, DeliveredAt: t0},
		{Known: true, Lastmod: lm, Ineligible: true, CheckedAt: t0.Add(time.Hour)},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("page %d: %+v, want %+v", i, got[i], want[i])
		}
	}

	pending := func(checked time.Time) []int64 {
		t.Helper()
		found, err := s.PendingDeliveries(ctx, "a", model.PendingQuery{Now: t0, Recheck: map[string]time.Time{"bing": checked}})
		must(t, err)
		var hashes []int64
		for _, p := range found {
			if p.Channel != "bing" || !p.State.Ineligible {
				t.Errorf("pending %+v", p)
			}
			hashes = append(hashes, p.Hash)
		}
		slices.Sort(hashes)
		return hashes
	}
	if got := pending(t0.Add(-time.Second)); len(got) != 0 {
		t.Errorf("found before their time: %v, want none", got)
	}
	if got, want := pending(t0), []int64{pages[0].Hash}; !slices.Equal(got, want) {
		t.Errorf("once the first's time came: %v, want %v", got, want)
	}
	if got, want := pending(t0.Add(time.Hour)), []int64{pages[0].Hash, pages[3].Hash}; !slices.Equal(got, want) {
		t.Errorf("once both times came: %v, want %v", got, want)
	}
	// Sent again after a change, a URL is no longer held back.
	record(t0.Add(2*time.Hour), channel.Outcome{URLs: due(0), Delivered: true, Preflight: &channel.Preflight{}})
	s = b.Reopen(t, s)
	if got, want := pending(t0.Add(time.Hour)), []int64{pages[3].Hash}; !slices.Equal(got, want) {
		t.Errorf("once the first was sent: %v, want %v", got, want)
	}

	days, err := s.ChannelDays(ctx, t0.Add(-24*time.Hour), "a")
	must(t, err)
	var today []model.ChannelDay
	for _, d := range days {
		if d.Day == t0.Format(time.DateOnly) {
			today = append(today, d)
		}
	}
	if len(today) != 1 || today[0].Total != 2 || today[0].Successful != 2 {
		t.Errorf("the day's statistics count %+v; want the two URLs sent", today)
	}
}

// testRemovals: URLs that left the sitemaps wait to be probed, the first to leave first, with
// their URLs; a probe ends the wait; a URL that leaves again waits afresh; sites are apart.
func testRemovals(t *testing.T, b Backend) {
	s := b.Open(t)
	rm := func() State { return s }
	pages := []channel.Page{page(1, t0), page(2, t0), page(3, t0), page(-1<<62, t0)}
	sync(t, s, "a", t0, pages, nil)
	toProbe := func(site string, limit int) []channel.Page {
		t.Helper()
		left, err := rm().LeftToProbe(ctx, site, limit)
		must(t, err)
		return left
	}
	if left := toProbe("a", 10); len(left) != 0 {
		t.Fatalf("before any left: %+v", left)
	}
	must(t, rm().MarkLeft(ctx, "a", []int64{3}, t0))
	must(t, rm().MarkLeft(ctx, "a", []int64{pages[3].Hash, 1}, t0.Add(time.Hour)))
	s = b.Reopen(t, s)
	if left, want := toProbe("a", 2), []channel.Page{{Hash: 3, URL: pages[2].URL}, {Hash: pages[3].Hash, URL: pages[3].URL}}; !slices.Equal(left, want) {
		t.Fatalf("LeftToProbe = %+v, want %+v", left, want)
	}
	if left := toProbe("b", 10); len(left) != 0 {
		t.Errorf("another site's: %+v", left)
	}
	must(t, rm().RecordProbe(ctx, "a", 3, 404, t0.Add(2*time.Hour)))
	s = b.Reopen(t, s)
	if left := toProbe("a", 10); len(left) != 2 || left[0].Hash != pages[3].Hash || left[1].Hash != 1 {
		t.Errorf("after a probe: %+v, want the other two", left)
	}
	// Leaving again, a URL waits afresh, after those that left before it.
	must(t, rm().MarkLeft(ctx, "a", []int64{pages[3].Hash, 3}, t0.Add(24*time.Hour)))
	s = b.Reopen(t, s)
	left := toProbe("a", 10)
	var hashes []int64
	for _, p := range left {
		hashes = append(hashes, p.Hash)
	}
	if want := []int64{1, -1 << 62, 3}; !slices.Equal(hashes, want) {
		t.Errorf("after leaving again: %v, want %v", hashes, want)
	}
	for _, h := range hashes {
		must(t, rm().RecordProbe(ctx, "a", h, 200, t0.Add(25*time.Hour)))
	}
	s = b.Reopen(t, s)
	if left := toProbe("a", 10); len(left) != 0 {
		t.Errorf("after every probe: %+v", left)
	}
}
