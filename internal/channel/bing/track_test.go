package bing_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// tracked is a world whose first n URLs were submitted, through IndexNow, at submitted: in the
// catalogue and delivered, as runs before left them.
func tracked(t *testing.T, set func(b *config.Bing), n int, submitted time.Time) *world {
	w := newWorld(t, set, map[string]int{"k": 100})
	ctx := context.Background()
	var pages []channel.Page
	for _, d := range w.due[:n] {
		pages = append(pages, channel.Page{Hash: d.Hash, URL: d.URL})
	}
	if err := w.store.AddPages(ctx, "s", submitted, pages, false); err != nil {
		t.Fatal(err)
	}
	if err := w.store.RecordOutcome(ctx, "s", submitted, channel.Outcome{Channel: "indexnow", URLs: w.due[:n], Delivered: true}); err != nil {
		t.Fatal(err)
	}
	return w
}

// idle runs the channel as a run with nothing due on Bing does, and returns what it reported
// and the crawls it told OnCrawl of.
func (w *world) idle() (*enginetest.Reporter, []time.Duration) {
	ch := bing.New(w.site, w.client, "sitepush-test", w.store, time.Now())
	var took []time.Duration
	ch.OnCrawl = func(site string, d time.Duration) { took = append(took, d) }
	rep := &enginetest.Reporter{}
	ch.Idle(context.Background(), rep)
	return rep, took
}

// A run asks Bing about the URLs submitted before it and not seen crawled since; it keeps what
// Bing said — the instant of a WCF date whatever its offset, "never" for DateTime.MinValue — and
// never asks again about a URL seen crawled after its submission.
func TestTrackAsksUntilCrawled(t *testing.T) {
	submitted := time.Now().Add(-3 * time.Hour).Truncate(time.Millisecond)
	w := tracked(t, func(b *config.Bing) { b.APIKey = "k" }, 2, submitted)
	a, b := w.due[0], w.due[1]
	crawled := submitted.Add(90 * time.Minute)
	w.bing.SetInfo(map[string]enginetest.BingURLInfo{
		a.URL: {LastCrawled: crawled, HTTPStatus: 200, Discovered: submitted.Add(time.Minute), Offset: "-0700"},
	})
	rep, took := w.idle()
	if got := w.bing.Asked(); !slices.Equal(got, []string{a.URL, b.URL}) {
		t.Fatalf("asked about %q; want both submitted URLs", got)
	}
	if len(rep.Errors()) != 0 || !slices.Equal(took, []time.Duration{90 * time.Minute}) {
		t.Errorf("errors %q, crawls told %v; want none and 90m", rep.Errors(), took)
	}
	c, ok, err := w.store.BingCrawl(context.Background(), "s", a.Hash)
	if err != nil || !ok || !c.LastCrawled.Equal(crawled) || c.HTTPStatus != 200 || !c.Discovered.Equal(submitted.Add(time.Minute)) ||
		!c.Submitted.Equal(submitted) || time.Since(c.CheckedAt) > time.Minute {
		t.Errorf("kept of %s: %+v, %v, %v", a.URL, c, ok, err)
	}
	if c, ok, _ := w.store.BingCrawl(context.Background(), "s", b.Hash); !ok || !c.LastCrawled.IsZero() || c.Crawled() {
		t.Errorf("kept of %s, never crawled: %+v, %v", b.URL, c, ok)
	}
	w.idle()
	if got := w.bing.Asked()[2:]; !slices.Equal(got, []string{b.URL}) {
		t.Errorf("the next run asked about %q; want only %s, not crawled yet", got, b.URL)
	}
}

// bing.trackPerRun bounds the URLs asked about in a run, the oldest submission first;
// bing.track: false asks about none.
func TestTrackPerRunAndOff(t *testing.T) {
	w := tracked(t, func(b *config.Bing) { b.APIKey, b.TrackPerRun = "k", 1 }, 3, time.Now().Add(-time.Hour))
	// The first two went to Bing since: their newest submission is newer than the third's.
	w.store.RecordOutcome(context.Background(), "s", time.Now().Add(-time.Minute), channel.Outcome{Channel: "bing", URLs: w.due[:2], Delivered: true})
	w.idle()
	if got := w.bing.Asked(); !slices.Equal(got, []string{w.due[2].URL}) {
		t.Errorf("asked about %q; want the oldest submission alone", got)
	}
	off := tracked(t, func(b *config.Bing) { b.APIKey, b.Track = "k", false }, 3, time.Now().Add(-time.Hour))
	off.idle()
	if got := off.bing.Asked(); len(got) != 0 {
		t.Errorf("bing.track false asked about %q", got)
	}
}

// A run that delivers asks about what was submitted before it, not about what it just sent; a
// key Bing refuses makes a note, no failure of the run.
func TestTrackAfterDelivery(t *testing.T) {
	w := tracked(t, func(b *config.Bing) { b.APIKey = "k" }, 1, time.Now().Add(-time.Hour))
	w.due = w.due[1:3]
	r := w.run()
	if r.Submitted() != 2 || !slices.Equal(w.bing.Asked(), []string{"https://www.example.com/p/0"}) {
		t.Errorf("submitted %d, asked about %q; want 2 and the URL submitted before", r.Submitted(), w.bing.Asked())
	}

	bad := tracked(t, func(b *config.Bing) { b.APIKey = "wrong" }, 1, time.Now().Add(-time.Hour))
	rep, _ := bad.idle()
	if notes := strings.Join(rep.Notes(), "\n"); len(rep.Errors()) != 0 || !strings.Contains(notes, "GetUrlInfo") || !strings.Contains(notes, "bing.apiKey") {
		t.Errorf("a refused key: errors %q, notes %q", rep.Errors(), notes)
	}
}
