package statetest

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// testMemos: what runs remember of sitemaps is read back without pages, the pages on their own,
// byte for byte (their format is the runner's); a memo saved without pages keeps those saved
// before, and the memos not saved are forgotten.
func testMemos(t *testing.T, b Backend) {
	s := b.Open(t)
	if got, err := s.SitemapMemos(ctx, "a"); err != nil || len(got) != 0 {
		t.Fatalf("before any: %v, %v", got, err)
	}
	one := model.SitemapMemo{Sitemap: "https://a.example/1.xml", ETag: `"x"`, LastModified: "Sun, 01 Mar 2026 12:00:00 GMT",
		Hash: 1 << 63, Scope: "s", URLs: 2, Filtered: 1, Pages: bytes.Repeat([]byte{7}, 32)}
	two := model.SitemapMemo{Sitemap: "/srv/2.xml", Size: 123, ModTime: t0.UnixNano(), Hash: 5, Scope: "s", URLs: 1, Pages: []byte("any bytes")}
	must(t, s.SaveSitemapMemos(ctx, "a", []model.SitemapMemo{one, two}))
	s = b.Reopen(t, s)
	got, err := s.SitemapMemos(ctx, "a")
	headOf := func(m model.SitemapMemo) model.SitemapMemo { m.Pages = nil; return m }
	if err != nil || len(got) != 2 || fmt.Sprint(got[one.Sitemap]) != fmt.Sprint(headOf(one)) || fmt.Sprint(got[two.Sitemap]) != fmt.Sprint(headOf(two)) {
		t.Fatalf("memos: %+v, %v", got, err)
	}
	for _, m := range []model.SitemapMemo{one, two} {
		if pages, err := s.SitemapPages(ctx, "a", m.Sitemap); err != nil || !bytes.Equal(pages, m.Pages) {
			t.Errorf("pages of %s: %v, %v", m.Sitemap, pages, err)
		}
	}
	// One changed its validators only, the other is gone, a third has no pages to keep.
	kept := headOf(one)
	kept.ETag = `"y"`
	must(t, s.SaveSitemapMemos(ctx, "a", []model.SitemapMemo{kept, {Sitemap: "/srv/3.xml", Scope: "s"}}))
	s = b.Reopen(t, s)
	got, err = s.SitemapMemos(ctx, "a")
	pages, _ := s.SitemapPages(ctx, "a", one.Sitemap)
	if err != nil || len(got) != 1 || got[one.Sitemap].ETag != `"y"` || !bytes.Equal(pages, one.Pages) {
		t.Errorf("after a save of one without pages: %+v, %v, pages %v", got, err, pages)
	}
	if gone, err := s.SitemapPages(ctx, "a", two.Sitemap); err != nil || gone != nil {
		t.Errorf("a forgotten sitemap's pages: %v, %v", gone, err)
	}
	if other, _ := s.SitemapMemos(ctx, "b"); len(other) != 0 {
		t.Errorf("another site's memos: %+v", other)
	}
}

// testUnfinishedMemos: a memo of an unfinished read says so once read back, and is read back at
// once (the next run reads on from it); saving no memo forgets them all.
func testUnfinishedMemos(t *testing.T, b Backend) {
	s := b.Open(t)
	one := model.SitemapMemo{Sitemap: "https://a.example/1.xml", Hash: 3, Scope: "s", URLs: 1, Unfinished: true, Pages: make([]byte, 16)}
	two := model.SitemapMemo{Sitemap: "https://a.example/2.xml", Hash: 4, Scope: "s", URLs: 1, Pages: make([]byte, 16)}
	must(t, s.SaveSitemapMemos(ctx, "a", []model.SitemapMemo{one, two}))
	s = b.Reopen(t, s)
	got, err := s.SitemapMemos(ctx, "a")
	if err != nil || !got[one.Sitemap].Unfinished {
		t.Fatalf("an unfinished memo read back: %+v, %v", got, err)
	}
	if m, ok := got[two.Sitemap]; ok && m.Unfinished {
		t.Errorf("a settled memo read back as unfinished: %+v", m)
	}
	settled := one
	settled.Unfinished, settled.Pages = false, nil
	must(t, s.SaveSitemapMemos(ctx, "a", []model.SitemapMemo{settled}))
	s = b.Reopen(t, s)
	if pages, _ := s.SitemapPages(ctx, "a", one.Sitemap); !bytes.Equal(pages, one.Pages) {
		t.Errorf("a memo settled without its pages lost them: %v", pages)
	}
	must(t, s.SaveSitemapMemos(ctx, "a", nil))
	s = b.Reopen(t, s)
	if pages, _ := s.SitemapPages(ctx, "a", one.Sitemap); pages != nil {
		t.Errorf("saving no memo kept %s", one.Sitemap)
	}
}

// testPendingDeliveries: the URLs whose last attempt failed, and with resubmitAfter those
// accepted that long ago (rejected ones too), on the channels asked for — wherever their hashes
// fall.
func testPendingDeliveries(t *testing.T, b Backend) {
	s := b.Open(t)
	day := 24 * time.Hour
	h := []int64{0, 1, 1 << 61, -2, -(1 << 62), 3 << 60}
	record := func(at time.Time, ch string, hash int64, o channel.Outcome) {
		t.Helper()
		o.Channel, o.URLs = ch, []channel.Due{{Hash: hash, URL: fmt.Sprintf("https://a.example/%d", hash)}}
		must(t, s.RecordOutcome(ctx, "a", at, o))
	}
	record(t0.Add(-10*day), "indexnow", h[1], channel.Outcome{Delivered: true})
	record(t0, "indexnow", h[2], channel.Outcome{Delivered: true})
	record(t0, "indexnow", h[3], channel.Outcome{Err: "HTTP 503"})
	record(t0.Add(-10*day), "bing", h[4], channel.Outcome{Err: "HTTP 500"})
	record(t0.Add(-10*day), "bing", h[5], channel.Outcome{Rejected: true, Err: "InvalidUrl"})
	record(t0.Add(-10*day), "feed", h[2], channel.Outcome{Unsent: model.UnsentBacklog})
	s = b.Reopen(t, s)
	pending := func(channels []string, resubmitAfter time.Duration) []string {
		t.Helper()
		got, err := s.PendingDeliveries(ctx, "a", model.PendingQuery{Failed: channels, Resubmit: channels, Now: t0, ResubmitAfter: resubmitAfter})
		must(t, err)
		var keys []string
		for _, p := range got {
			keys = append(keys, fmt.Sprintf("%s/%d failed=%t", p.Channel, p.Hash, p.State.Failed))
		}
		slices.Sort(keys)
		return keys
	}
	if got, want := pending([]string{"indexnow"}, 0), []string{fmt.Sprintf("indexnow/%d failed=true", h[3])}; !slices.Equal(got, want) {
		t.Errorf("failed on indexnow: %v, want %v", got, want)
	}
	want := []string{fmt.Sprintf("bing/%d failed=true", h[4]), fmt.Sprintf("bing/%d failed=false", h[5]),
		fmt.Sprintf("indexnow/%d failed=true", h[3]), fmt.Sprintf("indexnow/%d failed=false", h[1])}
	slices.Sort(want)
	if got := pending([]string{"indexnow", "bing", "feed"}, 5*day); !slices.Equal(got, want) {
		t.Errorf("failed, or accepted 5 days ago or more:\n%v\nwant %v", got, want)
	}
	record(t0, "indexnow", h[1], channel.Outcome{Delivered: true})
	s = b.Reopen(t, s)
	if got, want := pending([]string{"indexnow"}, 5*day), []string{fmt.Sprintf("indexnow/%d failed=true", h[3])}; !slices.Equal(got, want) {
		t.Errorf("once resubmitted: %v, want %v", got, want)
	}
}
