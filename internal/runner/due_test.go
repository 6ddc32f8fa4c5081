package runner

import (
	"slices"
	"testing"
	"time"
)

func TestIsDue(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	delivered := DeliveryState{Known: true, Lastmod: now.Add(-10 * day), DeliveredAt: now.Add(-9 * day)}
	noLastmod := DeliveryState{Known: true, DeliveredAt: now.Add(-9 * day)}
	tests := []struct {
		name       string
		st         DeliveryState
		lastmod    time.Time
		resubmit   time.Duration
		due, retry bool
	}{
		{"never delivered", DeliveryState{}, time.Time{}, 0, true, false},
		{"last attempt failed", DeliveryState{Known: true, Failed: true, DeliveredAt: now.Add(-day)}, time.Time{}, 0, true, true},
		{"unchanged", delivered, now.Add(-10 * day), 0, false, false},
		{"newer lastmod", delivered, now.Add(-5 * day), 0, true, false},
		{"older lastmod", delivered, now.Add(-20 * day), 0, false, false},
		{"the sitemap dropped its lastmod", delivered, time.Time{}, 0, false, false},
		{"a lastmod appears, older than the delivery", noLastmod, now.Add(-10 * day), 0, false, false},
		{"a lastmod appears, newer than the delivery", noLastmod, now.Add(-day), 0, true, false},
		{"resubmitAfter passed", delivered, now.Add(-10 * day), 9 * day, true, false},
		{"resubmitAfter not yet", delivered, now.Add(-10 * day), 10 * day, false, false},
	}
	for _, tc := range tests {
		due, retry := isDue(tc.st, tc.lastmod, tc.resubmit, now, false)
		if due != tc.due || retry != tc.retry {
			t.Errorf("%s: due %v retry %v, want %v %v", tc.name, due, retry, tc.due, tc.retry)
		}
		// A channel of new URLs only gets the never delivered and the failed.
		newDue, newRetry := isDue(tc.st, tc.lastmod, tc.resubmit, now, true)
		if wantNew := !tc.st.Known || tc.st.Failed; newDue != wantNew || newRetry != tc.retry {
			t.Errorf("%s, only new: due %v retry %v, want %v %v", tc.name, newDue, newRetry, wantNew, tc.retry)
		}
	}
}

func TestQueueOrdersRetriesFirst(t *testing.T) {
	q := newQueue("s", nil, []item{{hash: 1}, {hash: 2, retry: true}, {hash: 3}, {hash: 4, retry: true}})
	var got []int64
	for _, it := range q.items {
		got = append(got, it.hash)
	}
	if want := []int64{2, 4, 1, 3}; len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestNewest(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	nw := newest{n: 4}
	for i, lm := range []time.Time{{}, day(3), day(9), {}, day(1), day(9), day(5)} {
		nw.add(Page{Hash: int64(i), Lastmod: lm})
	}
	var got []int64
	for _, p := range nw.list() {
		got = append(got, p.Hash)
	}
	// Newest first; equal dates in sitemap order; the undated only after every dated page.
	if want := []int64{2, 5, 6, 1}; !slices.Equal(got, want) {
		t.Errorf("newest = %v, want %v", got, want)
	}
	undated := newest{n: 2}
	for i := range 5 {
		undated.add(Page{Hash: int64(i)})
	}
	if l := undated.list(); len(l) != 2 || l[0].Hash != 0 || l[1].Hash != 1 {
		t.Errorf("undated pages keep sitemap order: %v", l)
	}
	none := newest{}
	none.add(Page{Hash: 1})
	if len(none.list()) != 0 {
		t.Error("a channel that asked for none got some")
	}
}
