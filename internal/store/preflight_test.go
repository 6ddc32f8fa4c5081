package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestPreflightOutcomes: the story of a URL a preflight held back tells the reason and what was
// found, with its state (ineligible, its last delivery kept); one that failed for now (a 5xx) is
// a failure; one sent after a preflight is marked ok. What every state keeps of them is in the
// contract (statetest, Ineligible).
func TestPreflightOutcomes(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	lm := t0.Add(-time.Hour)
	urls := []string{"https://a.example/noindex", "https://a.example/down", "https://a.example/fine"}
	var pages []channel.Page
	for _, u := range urls {
		pages = append(pages, channel.Page{URL: u, Hash: hashOf(u), Lastmod: lm})
	}
	if _, err := s.SyncCatalog(ctx, "a", t0, pages, []string{"bing"}, false); err != nil {
		t.Fatal(err)
	}
	due := func(i int) []channel.Due { return []channel.Due{{Hash: pages[i].Hash, Lastmod: lm}} }
	// The first was delivered once, before its page said noindex.
	record := func(at time.Time, o channel.Outcome) {
		t.Helper()
		o.Channel = "bing"
		if err := s.RecordOutcome(ctx, "a", at, o); err != nil {
			t.Fatal(err)
		}
	}
	record(t0.Add(-48*time.Hour), channel.Outcome{URLs: []channel.Due{{Hash: pages[0].Hash}}, Delivered: true})
	record(t0, channel.Outcome{URLs: due(0), Preflight: &channel.Preflight{Reason: channel.NotNoindex, Detail: "X-Robots-Tag: noindex"}})
	record(t0, channel.Outcome{URLs: due(1), Preflight: &channel.Preflight{Reason: channel.NotStatus, Detail: "HTTP 503", Again: true}})
	record(t0, channel.Outcome{URLs: due(2), Delivered: true, Preflight: &channel.Preflight{}})

	story, err := s.URLStory(ctx, "a", "https://a.example/", hashOf, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range story {
		d := u.Channels["bing"]
		if d.Preflight == nil || !d.PreflightAt.Equal(t0) {
			t.Fatalf("%s: preflight %+v at %v", u.URL, d.Preflight, d.PreflightAt)
		}
		got[u.URL] = d.Outcome + " " + d.Preflight.Reason + " " + d.Preflight.Detail
		if u.URL == urls[0] && (!d.State.Ineligible || !d.State.Lastmod.Equal(lm) || !d.State.CheckedAt.Equal(t0) ||
			!d.State.DeliveredAt.Equal(t0.Add(-48*time.Hour))) {
			t.Errorf("the ineligible URL's state: %+v", d.State)
		}
		if u.URL == urls[1] && (!d.State.Failed || !d.Preflight.Again || d.LastError != "not eligible for now (HTTP 503); checked again at the next run") {
			t.Errorf("the URL held back by a 5xx: %+v, %+v, %q", d.State, d.Preflight, d.LastError)
		}
	}
	want := map[string]string{urls[0]: "ineligible noindex X-Robots-Tag: noindex", urls[1]: "failed status HTTP 503", urls[2]: "ok  "}
	for u, w := range want {
		if got[u] != w {
			t.Errorf("%s: %q, want %q", u, got[u], w)
		}
	}
}
