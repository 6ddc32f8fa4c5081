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
		if q := bing.Today(w.site, d); q.Left() != 0 || q.Source() != "Bing's grant of 50" || q.Also() != "your bing.dailyQuota is 100" {
			t.Errorf("left %d (%s)", q.Left(), q.Source())
		}
		if notes := strings.Join(r.Notes(), "\n"); !strings.Contains(notes, "the quota of today is spent (Bing's grant of 50) until 00:00 UTC") {
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
		if notes := strings.Join(r.Notes(), "\n"); !strings.Contains(notes, "0 left today (Bing's grant of 50)") {
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
		if notes := strings.Join(rep.Notes(), "\n"); !strings.Contains(notes, "the quota leaves 40 today (Bing's grant of 40)") {
			t.Errorf("notes %q", notes)
		}
		if d := w.today(); d != (model.BingDay{}) {
			t.Errorf("a preview kept %+v", d)
		}
	})
}

// A run of a site whose configuration sets no bing.dailyQuota names sitepush's default limit, not
// a "dailyQuota 100" the user never wrote, and Bing's grant when Bing's answer is the bound.
func TestQuotaWordsWithoutDailyQuota(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grant int
		note  string
	}{
		{"Bing grants more than the default", 1000, "the quota of today is spent (sitepush's default limit of 100 a day, which bing.dailyQuota changes) until 00:00 UTC"},
		{"Bing grants less", 10, "the quota of today is spent (Bing's grant of 10) until 00:00 UTC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(b *config.Bing) { b.APIKey = "k" }, map[string]int{"k": tc.grant})
				w.site = parsedSite(t, "bing: {enabled: true, apiKey: k, endpoint: "+endpoint+"}")
				r := w.run()
				notes := strings.Join(r.Notes(), "\n")
				if !strings.Contains(notes, tc.note) || strings.Contains(notes, "dailyQuota 100") {
					t.Errorf("notes %q; want %q", notes, tc.note)
				}
			})
		})
	}
}

// parsedSite is site "s" as a configuration file with bing (a YAML mapping line) writes it: only
// the keys it sets count as given (config.Site.Given).
func parsedSite(t *testing.T, bing string) *config.Site {
	t.Helper()
	doc := "sites:\n  - id: s\n    baseUrl: https://www.example.com\n    sitemaps: [https://www.example.com/sitemap.xml]\n    indexnow: {enabled: false}\n    " + bing + "\n"
	cfg, err := config.Parse([]byte(doc), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &cfg.Sites[0]
}
