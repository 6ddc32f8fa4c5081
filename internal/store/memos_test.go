package store_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// indexnowQuery asks for what is pending on IndexNow at at, with resubmitAfter.
func indexnowQuery(at time.Time, resubmitAfter time.Duration) model.PendingQuery {
	ch := []string{"indexnow"}
	return model.PendingQuery{Failed: ch, Resubmit: ch, Now: at, ResubmitAfter: resubmitAfter}
}

// The URLs to resubmit are looked for only once the channel's floor — its earliest acceptance of
// a URL still standing — is old enough. A clock set back shows it: a URL accepted at a time
// before the floor waits until the floor is passed. A dry run does not move the floor.
func TestResubmitFloor(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	day := 24 * time.Hour
	accept := func(at time.Time, hashes ...int64) {
		t.Helper()
		var due []channel.Due
		for _, h := range hashes {
			due = append(due, channel.Due{Hash: h})
		}
		must(t, s.RecordOutcome(ctx, "f", at, channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}))
	}
	pending := func(at time.Time, dryRun bool) []int64 {
		t.Helper()
		q := indexnowQuery(at, 5*day)
		q.DryRun = dryRun
		got, err := s.PendingDeliveries(ctx, "f", q)
		if err != nil {
			t.Fatal(err)
		}
		var hashes []int64
		for _, p := range got {
			hashes = append(hashes, p.Hash)
		}
		slices.Sort(hashes)
		return hashes
	}
	if got := pending(t0, false); len(got) != 0 {
		t.Fatalf("nothing accepted yet: %v", got)
	}
	accept(t0, 1)
	if got := pending(t0.Add(day), false); len(got) != 0 {
		t.Fatalf("a day after: %v", got)
	}
	accept(t0.Add(-20*day), 2) // the clock set back
	if got := pending(t0.Add(4*day), false); len(got) != 0 {
		t.Errorf("before the floor is passed, the deliveries are not read: %v", got)
	}
	if got := pending(t0.Add(6*day), true); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("once it is passed: %v", got)
	}
	accept(t0.Add(6*day), 1, 2)
	if got := pending(t0.Add(7*day), true); len(got) != 0 {
		t.Errorf("resubmitted: %v", got)
	}
	accept(t0.Add(-30*day), 3) // set back again, below any floor
	if got := pending(t0.Add(8*day), false); !slices.Equal(got, []int64{3}) {
		t.Errorf("a dry run moved the floor: %v", got)
	}
}

// A floor set while the clock was ahead is not believed once the clock is back: a URL accepted
// since is due when resubmitAfter has passed.
func TestResubmitFloorAheadOfTheClock(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	day := 24 * time.Hour
	q := func(at time.Time) model.PendingQuery { return indexnowQuery(at, 30*day) }
	if _, err := s.PendingDeliveries(ctx, "f", q(t0.Add(365*day))); err != nil {
		t.Fatal(err)
	}
	must(t, s.RecordOutcome(ctx, "f", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1}}, Delivered: true}))
	if got, err := s.PendingDeliveries(ctx, "f", q(t0.Add(31*day))); err != nil || len(got) != 1 || got[0].Hash != 1 {
		t.Errorf("31 days after its acceptance: %+v, %v", got, err)
	}
}

// Once a complete run answered what was due, the floor passes the URLs accepted long ago and not
// since — no longer in the sitemaps — so that they do not make every run look again.
func TestSettleResubmits(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	day := 24 * time.Hour
	q := func(at time.Time) model.PendingQuery { return indexnowQuery(at, 30*day) }
	accept := func(at time.Time, h int64) {
		must(t, s.RecordOutcome(ctx, "f", at, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: h}}, Delivered: true}))
	}
	accept(t0, 1)
	accept(t0, 2) // removed from the sitemaps later
	if got, err := s.PendingDeliveries(ctx, "f", q(t0.Add(31*day))); err != nil || len(got) != 2 {
		t.Fatalf("31 days later: %+v, %v", got, err)
	}
	accept(t0.Add(31*day), 1)
	// A dry run, or a run that was not told to settle, leaves the floor where it was.
	dry := q(t0.Add(31 * day))
	dry.DryRun = true
	must(t, s.SettleResubmits(ctx, "f", dry))
	if got, _ := s.PendingDeliveries(ctx, "f", q(t0.Add(32*day))); len(got) != 1 || got[0].Hash != 2 {
		t.Errorf("before settling, the URL removed is still found: %+v", got)
	}
	must(t, s.SettleResubmits(ctx, "f", q(t0.Add(31*day))))
	if got, _ := s.PendingDeliveries(ctx, "f", q(t0.Add(32*day))); len(got) != 0 {
		t.Errorf("after settling: %+v", got)
	}
	// 30 days after the resubmission, a scan again: the URL removed is found with the other (a
	// run does not send it, as no sitemap lists it).
	if got, _ := s.PendingDeliveries(ctx, "f", q(t0.Add(62*day))); len(got) != 2 {
		t.Errorf("30 days after the resubmission: %+v", got)
	}
}

// A URL that left the sitemaps when a run settled the resubmits, and comes back, is looked up:
// its acceptance moves the floor back, so that it is found when resubmitAfter makes it due, even
// when it came back while resubmitAfter was off — not only once the floor grows old enough.
func TestFloorOfAURLThatCameBack(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	day := 24 * time.Hour
	q := func(at time.Time) model.PendingQuery { return indexnowQuery(at, 30*day) }
	pages := []channel.Page{{Hash: 1, URL: "https://f.example/1"}, {Hash: 2, URL: "https://f.example/2"}}
	if _, err := s.SyncCatalog(ctx, "f", t0, pages, nil, false); err != nil {
		t.Fatal(err)
	}
	must(t, s.RecordOutcome(ctx, "f", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1}, {Hash: 2}}, Delivered: true}))
	if _, err := s.PendingDeliveries(ctx, "f", q(t0.Add(31*day))); err != nil {
		t.Fatal(err)
	}
	// The second has left the sitemaps: the run resubmits the first only, and settles.
	must(t, s.RecordOutcome(ctx, "f", t0.Add(31*day), channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1}}, Delivered: true}))
	must(t, s.SettleResubmits(ctx, "f", q(t0.Add(31*day))))
	// It comes back at a run without resubmitAfter: looked up, not due.
	if _, err := s.SyncCatalog(ctx, "f", t0.Add(32*day), pages[1:], []string{"indexnow"}, false); err != nil {
		t.Fatal(err)
	}
	if got, err := s.PendingDeliveries(ctx, "f", q(t0.Add(33*day))); err != nil || len(got) != 1 || got[0].Hash != 2 {
		t.Errorf("resubmitAfter on again, the URL that came back: %+v, %v; want it found", got, err)
	}
}

// URLs reads hashes in order by a scan of their range when the catalogue holds few others there,
// by lookups otherwise; both give each hash its URL, "" for one unknown.
func TestURLsDenseAndSparse(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	var pages []channel.Page
	for i := range 3000 {
		u := fmt.Sprintf("https://a.example/%d", i)
		pages = append(pages, channel.Page{URL: u, Hash: hashOf(u)})
	}
	if err := s.AddPages(ctx, "a", t0, slices.Clone(pages), false); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(pages, func(a, b channel.Page) int { return cmp.Compare(a.Hash, b.Hash) })
	for _, tc := range []struct {
		name string
		take func(i int) bool
	}{{"dense", func(i int) bool { return i%5 != 0 }}, {"sparse", func(i int) bool { return i%10 == 0 }}} {
		var hashes []int64
		var want []string
		for i, p := range pages {
			if tc.take(i) {
				hashes, want = append(hashes, p.Hash), append(want, p.URL)
			}
		}
		hashes, want = append(hashes, pages[len(pages)-1].Hash+1), append(want, "")
		got, err := s.URLs(ctx, "a", hashes)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %d URLs, %v", tc.name, len(got), err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
