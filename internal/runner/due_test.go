package runner

import (
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
		due, retry := isDue(tc.st, tc.lastmod, tc.resubmit, now)
		if due != tc.due || retry != tc.retry {
			t.Errorf("%s: due %v retry %v, want %v %v", tc.name, due, retry, tc.due, tc.retry)
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
