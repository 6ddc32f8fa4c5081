package bing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
)

// today is what the store keeps of site "s"'s quota of today.
func (w *world) today() model.BingDay {
	w.t.Helper()
	d, err := w.store.QuotaDay(context.Background(), "s", time.Now().UTC().Format(time.DateOnly))
	if err != nil {
		w.t.Fatal(err)
	}
	return d
}

// A run keeps what Bing answered at its start in the state, and what it sent comes off it: with
// a key Bing grants 50 a day and dailyQuota 100, the state says 0 are left after the 50, and
// Bing is the reason — as every face of sitepush then tells.
func TestARunKeepsWhatBingSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 100 }, map[string]int{"k": 50})
		r := w.run()
		if r.Submitted() != 50 || r.Held() != 250 || !r.clean() {
			t.Fatalf("%v, errors %q", r, r.errs())
		}
		d := w.today()
		if d != (model.BingDay{Used: 50, Told: true, BingLeft: 50}) {
			t.Fatalf("the state keeps %+v; want Bing's 50 told before the 50 went", d)
		}
		if q := bing.Today(100, d); q.Left() != 0 || q.Source() != "Bing says 0 left today" {
			t.Errorf("left %d (%s)", q.Left(), q.Source())
		}
		if notes := strings.Join(r.Notes(), "\n"); !strings.Contains(notes, "the quota of today is spent (Bing says 0 left today) until 00:00 UTC") {
			t.Errorf("notes %q", notes)
		}
		// The next run asks again: Bing's new answer replaces the first, counted from what was used then.
		w.run()
		if d := w.today(); d != (model.BingDay{Used: 50, Told: true, BingLeft: 0, UsedWhenTold: 50}) {
			t.Errorf("after the second run the state keeps %+v", d)
		}
	})
}

// When Bing answers the quota call without the quota later the same day, what it said earlier
// stands, less what went since: nothing more goes, rather than dailyQuota's worth.
func TestBingsEarlierAnswerStands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 100 }, map[string]int{"k": 50})
		w.run()
		before := len(w.bing.Batches())
		w.client = enginetest.Client(quotaAnswer(w.bing, func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Content-Type", "application/json; charset=utf-8")
			rw.Write([]byte(`{"d":null}`))
		}))
		r := w.run()
		if sent := len(w.bing.Batches()) - before; sent != 0 || r.Held() != 250 {
			t.Errorf("the second run sent %d batches, %v; want none: Bing said 50 and 50 went", sent, r)
		}
		if notes := strings.Join(r.Notes(), "\n"); !strings.Contains(notes, "0 left today (Bing says 0 left today)") {
			t.Errorf("notes %q", notes)
		}
	})
}

// A dry run counts with Bing's answer of now but keeps nothing of it: it writes nothing.
func TestPreviewKeepsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 100 }, map[string]int{"k": 40})
		ch := bing.New(w.site, w.client, "sitepush-test", w.store, time.Now())
		rep := &enginetest.Reporter{}
		if held := ch.Preview(context.Background(), enginetest.Queue("s", w.due...), rep); held != 260 {
			t.Errorf("held %d; want 260 (Bing says 40)", held)
		}
		if notes := strings.Join(rep.Notes(), "\n"); !strings.Contains(notes, "the quota leaves 40 today (Bing says 40 left today)") {
			t.Errorf("notes %q", notes)
		}
		if d := w.today(); d != (model.BingDay{}) {
			t.Errorf("a preview kept %+v", d)
		}
	})
}
