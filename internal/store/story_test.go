package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestAURLsStoryTellsItsChecks: a URL's story says where the page stands in the content checks —
// out of the rotation, a suspect, or in line since a check (a check that found it changed keeps
// that place) — with its content, and gives each channel's delivery the page's content and what
// the channel was sent.
func TestAURLsStoryTellsItsChecks(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	u := func(name string) string { return "https://a.example/" + name }
	lm := t0.Add(-time.Hour)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	page := func(name string, check bool, lastmod time.Time) channel.Page {
		return channel.Page{URL: u(name), Hash: hashOf(u(name)), Lastmod: lastmod, Check: check}
	}
	deliver := func(when time.Time, ch string, names ...string) {
		t.Helper()
		o := channel.Outcome{Channel: ch, Delivered: true}
		for _, n := range names {
			o.URLs = append(o.URLs, channel.Due{Hash: hashOf(u(n)), Lastmod: lm})
		}
		if err := s.RecordOutcome(ctx, "a", when, o); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when time.Time, name string, content uint64, changed bool) {
		t.Helper()
		if err := s.RecordChecks(ctx, "a", []model.PageCheck{{Hash: hashOf(u(name)), At: when, Content: content, Changed: changed}}); err != nil {
			t.Fatal(err)
		}
	}
	sync := func(when time.Time, pages ...channel.Page) {
		t.Helper()
		if _, err := s.SyncCatalog(ctx, "a", when, pages, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	// trusted: its sitemap's lastmods are trusted; new: a suspect never checked; changed: sent to
	// indexnow before its first check, to bing after, then found changed; moved: checked, then its
	// lastmod moved; left: checked, then its sitemap's lastmods were trusted.
	sync(t0, page("trusted", false, lm), page("new", true, lm), page("changed", true, lm), page("moved", true, lm), page("left", true, lm))
	deliver(t0, "indexnow", "changed")
	check(at(1), "changed", 11, false)
	check(at(1), "moved", 44, false)
	check(at(1), "left", 55, false)
	deliver(at(2), "bing", "changed")
	check(at(3), "changed", 12, true)
	sync(at(4), page("moved", true, lm.Add(time.Hour)), page("left", false, lm))

	for _, tc := range []struct {
		name string
		want store.Checks
		sent map[string]uint64 // by channel
	}{
		{"trusted", store.Checks{}, nil},
		{"new", store.Checks{InRotation: true, Suspect: true}, nil},
		{"changed", store.Checks{InRotation: true, CheckedAt: at(1), Content: 12}, map[string]uint64{"indexnow": 11, "bing": 11}},
		{"moved", store.Checks{InRotation: true, Suspect: true, Content: 44}, nil},
		{"left", store.Checks{Content: 55}, nil},
	} {
		got, err := s.URLStory(ctx, "a", u(tc.name), hashOf, 10)
		if err != nil || len(got) != 1 {
			t.Fatalf("URLStory(%s) = %+v, %v", tc.name, got, err)
		}
		if got[0].Checks != tc.want {
			t.Errorf("%s: checks %+v, want %+v", tc.name, got[0].Checks, tc.want)
		}
		if len(got[0].Channels) != len(tc.sent) {
			t.Errorf("%s: on %d channels, want %d", tc.name, len(got[0].Channels), len(tc.sent))
		}
		for ch, sent := range tc.sent {
			if st := got[0].Channels[ch].State; st.Sent != sent || st.Content != tc.want.Content {
				t.Errorf("%s on %s: sent %d, content %d; want sent %d, content %d", tc.name, ch, st.Sent, st.Content, sent, tc.want.Content)
			}
		}
	}
	// A prefix search tells each URL's checks too.
	if all, err := s.URLStory(ctx, "a", u(""), hashOf, 10); err != nil || len(all) != 5 || all[0].URL != u("changed") || all[0].Checks.Content != 12 {
		t.Errorf("URLStory(prefix) = %+v, %v; want 5 URLs, changed first with its content", all, err)
	}
}
