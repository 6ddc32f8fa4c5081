package store_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

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
		got, err := s.PendingDeliveries(ctx, "f", []string{"indexnow"}, at, 5*day, dryRun)
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
