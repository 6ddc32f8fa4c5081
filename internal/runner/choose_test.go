package runner

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

func TestIsDue(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	delivered := model.DeliveryState{Known: true, Lastmod: now.Add(-10 * day), DeliveredAt: now.Add(-9 * day)}
	noLastmod := model.DeliveryState{Known: true, DeliveredAt: now.Add(-9 * day)}
	backlog := model.DeliveryState{Known: true, Lastmod: now.Add(-10 * day), Unsent: model.UnsentBacklog, TakenAt: now.Add(-9 * day)}
	backlogNoLastmod := model.DeliveryState{Known: true, Unsent: model.UnsentBacklog, TakenAt: now.Add(-9 * day)}
	tests := []struct {
		name       string
		st         model.DeliveryState
		lastmod    time.Time
		resubmit   time.Duration
		due, retry bool
	}{
		{"never delivered", model.DeliveryState{}, time.Time{}, 0, true, false},
		{"last attempt failed", model.DeliveryState{Known: true, Failed: true, DeliveredAt: now.Add(-day)}, time.Time{}, 0, true, true},
		{"unchanged", delivered, now.Add(-10 * day), 0, false, false},
		{"newer lastmod", delivered, now.Add(-5 * day), 0, true, false},
		{"older lastmod", delivered, now.Add(-20 * day), 0, false, false},
		{"the sitemap dropped its lastmod", delivered, time.Time{}, 0, false, false},
		{"a lastmod appears, older than the delivery", noLastmod, now.Add(-10 * day), 0, false, false},
		{"a lastmod appears, newer than the delivery", noLastmod, now.Add(-day), 0, true, false},
		{"resubmitAfter passed", delivered, now.Add(-10 * day), 9 * day, true, false},
		{"resubmitAfter not yet", delivered, now.Add(-10 * day), 10 * day, false, false},
		// A URL a first run took as known without sending it (backlog: none) was never submitted:
		// resubmitAfter does not send it, a change does.
		{"backlog, resubmitAfter passed", backlog, now.Add(-10 * day), 9 * day, false, false},
		{"backlog, newer lastmod", backlog, now.Add(-5 * day), 9 * day, true, false},
		// Never sent, it has no delivery: a lastmod that appears is compared with when it was taken.
		{"backlog, a lastmod appears, older than when it was taken", backlogNoLastmod, now.Add(-10 * day), 0, false, false},
		{"backlog, a lastmod appears, newer than when it was taken", backlogNoLastmod, now.Add(-day), 0, true, false},
	}
	for _, tc := range tests {
		due, retry := isDue(tc.st, channel.Page{Lastmod: tc.lastmod}, tc.resubmit, 0, now, false)
		if due != tc.due || retry != tc.retry {
			t.Errorf("%s: due %v retry %v, want %v %v", tc.name, due, retry, tc.due, tc.retry)
		}
		// A channel of new URLs only gets the never delivered and the failed.
		newDue, newRetry := isDue(tc.st, channel.Page{Lastmod: tc.lastmod}, tc.resubmit, 0, now, true)
		if wantNew := !tc.st.Known || tc.st.Failed; newDue != wantNew || newRetry != tc.retry {
			t.Errorf("%s, only new: due %v retry %v, want %v %v", tc.name, newDue, newRetry, wantNew, tc.retry)
		}
	}
}

// TestIneligibleDue: a URL a preflight held back is due again when its lastmod changes, or once
// preflightAfter has passed since it was checked — at once when its channel no longer checks.
func TestIneligibleDue(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	checked := model.DeliveryState{Known: true, Ineligible: true, Lastmod: now.Add(-10 * day), CheckedAt: now.Add(-2 * day)}
	tests := []struct {
		name    string
		lastmod time.Time
		wait    time.Duration
		want    string
	}{
		{"unchanged, within preflightAfter", now.Add(-10 * day), 7 * day, ""},
		{"unchanged, without a lastmod", time.Time{}, 7 * day, ""},
		{"a newer lastmod", now.Add(-day), 7 * day, DueChanged},
		{"an older lastmod", now.Add(-20 * day), 7 * day, DueChanged},
		{"preflightAfter passed", now.Add(-10 * day), 2 * day, DueRecheck},
		{"the channel no longer checks", now.Add(-10 * day), 0, DueRecheck},
	}
	for _, tc := range tests {
		// resubmitAfter has passed too: it does not bring back a URL held back.
		if got := DueReason(checked, channel.Page{Lastmod: tc.lastmod}, day, tc.wait, now, false); got != tc.want {
			t.Errorf("%s: due %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestNewest(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	nw := newest{n: 4}
	for i, lm := range []time.Time{{}, day(3), day(9), {}, day(1), day(9), day(5)} {
		nw.add(channel.Page{Hash: int64(i), Lastmod: lm})
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
		undated.add(channel.Page{Hash: int64(i)})
	}
	if l := undated.list(); len(l) != 2 || l[0].Hash != 0 || l[1].Hash != 1 {
		t.Errorf("undated pages keep sitemap order: %v", l)
	}
	none := newest{}
	none.add(channel.Page{Hash: 1})
	if len(none.list()) != 0 {
		t.Error("a channel that asked for none got some")
	}
}
