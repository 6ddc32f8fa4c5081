package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

func page(h int64, lastmod time.Time) channel.Page {
	return channel.Page{Hash: h, URL: "https://a.example/" + string(rune('a'+h%26)) + time.Duration(h).String(), Lastmod: lastmod}
}

func TestSyncCatalog(t *testing.T) {
	s := storetest.Open(t)
	ch := []string{"indexnow", "bing"}
	lm := t0.Add(-time.Hour)
	pages := []channel.Page{page(1, lm), page(-2, time.Time{}), page(1<<62, lm)}
	got, err := s.SyncCatalog(ctx, "a", t0, pages, ch, false)
	if err != nil || len(got) != 6 || slices.ContainsFunc(got, func(d model.DeliveryState) bool { return d.Known }) {
		t.Fatalf("new pages: %v, %v", got, err)
	}
	urls, _ := s.URLs(ctx, "a", []int64{1 << 62, 7, 1, -2})
	if want := []string{pages[2].URL, "", pages[0].URL, pages[1].URL}; !slices.Equal(urls, want) {
		t.Errorf("URLs = %q, want %q", urls, want)
	}
	if other, _ := s.URLs(ctx, "b", []int64{1}); other[0] != "" {
		t.Error("sites must not share a catalogue")
	}

	s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: 1, Lastmod: lm}}, Delivered: true})
	s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: -2}}, Err: "HTTP 503"})
	got, _ = s.SyncCatalog(ctx, "a", t0.Add(time.Minute), pages, ch, false)
	want := []model.DeliveryState{{}, {Known: true, Lastmod: lm, DeliveredAt: t0}, {Known: true, Failed: true, Failures: 1}, {}, {}, {}}
	if !slices.Equal(got, want) {
		t.Errorf("states = %+v\nwant     %+v", got, want)
	}
}

func TestSyncCatalogWrites(t *testing.T) {
	s := storetest.Open(t)
	p := page(5, t0)
	s.SyncCatalog(ctx, "a", t0, []channel.Page{p}, nil, false)
	// A dry run writes nothing, even for a URL it has not seen.
	s.SyncCatalog(ctx, "a", t0, []channel.Page{page(6, t0)}, nil, true)
	if u, _ := s.URLs(ctx, "a", []int64{6}); u[0] != "" {
		t.Error("a dry run recorded a URL")
	}
	moved := p
	moved.Lastmod = t0.Add(time.Hour)
	moved.URL += "?v=2"
	s.SyncCatalog(ctx, "a", t0.Add(time.Minute), []channel.Page{moved}, nil, false)
	if u, _ := s.URLs(ctx, "a", []int64{5}); u[0] != moved.URL {
		t.Errorf("URL after a change = %q", u[0])
	}
	// Two URLs with one hash in a batch: the state is shared, nothing fails.
	s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 5, Lastmod: moved.Lastmod}}, Delivered: true})
	twin := page(5, t0)
	twin.URL = "https://a.example/twin"
	got, err := s.SyncCatalog(ctx, "a", t0, []channel.Page{moved, twin}, []string{"indexnow"}, false)
	if err != nil || len(got) != 2 || !got[0].Known || got[0] != got[1] {
		t.Errorf("hash twins: %v, %v", got, err)
	}
}
