package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// writeSitemap writes a urlset of the given paths, each with a lastmod, and returns its file.
func writeSitemap(b *testing.B, dir, name string, from, n int, lastmod func(i int) string) string {
	var sb strings.Builder
	sb.WriteString("<urlset>\n")
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&sb, "<url><loc>https://a.example/catalog/item-%d</loc><lastmod>%s</lastmod></url>\n", i, lastmod(i))
	}
	sb.WriteString("</urlset>\n")
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkDue is the due computation of a 50,000-URL sitemap against a store that knows
// 1,000,000 URLs of the site, all delivered: read, sync and diff, nothing due.
func BenchmarkDue(b *testing.B) {
	st := storetest.Open(b)
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	// The store's million: sync and deliver in batches, as a million-URL run would.
	pages := make([]channel.Page, 0, 1000)
	for i := range 1_000_000 {
		u := fmt.Sprintf("https://a.example/catalog/item-%d", i)
		pages = append(pages, channel.Page{Hash: runner.URLHash([]byte(u)), URL: u, Lastmod: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
		if len(pages) == cap(pages) {
			st.SyncCatalog(ctx, "s", now, pages, nil, false)
			due := make([]channel.Due, len(pages))
			for j, p := range pages {
				due[j] = channel.Due{Hash: p.Hash, Lastmod: p.Lastmod}
			}
			st.RecordOutcome(ctx, "s", now, channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true})
			pages = pages[:0]
		}
	}
	s := newSiteIn(b, b.TempDir())
	writeSitemap(b, s.dir, "sitemap.xml", 400_000, 50_000, func(int) string { return "2026-01-01" })
	r := runner.New(st)
	r.Now = func() time.Time { return now.Add(time.Hour) }
	ch := &fakeChannel{name: "indexnow", batch: 10000}
	b.ResetTimer()
	for b.Loop() {
		rec, err := r.Run(ctx, s.site, runner.Options{Channels: []channel.Channel{ch}})
		if err != nil || rec.TotalURLs != 50_000 || rec.Channels["indexnow"].Due != 0 {
			b.Fatalf("%v %+v", err, rec)
		}
	}
}

// BenchmarkSteadyState is a daily run of a 50,000-URL site in which 100 URLs changed: one
// delivery of 100 URLs.
func BenchmarkSteadyState(b *testing.B) {
	st := storetest.Open(b)
	ctx := context.Background()
	s := newSiteIn(b, b.TempDir())
	day := 0
	lastmod := func(i int) string {
		if i < 100 {
			return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, day).Format(time.DateOnly)
		}
		return "2025-06-01"
	}
	writeSitemap(b, s.dir, "sitemap.xml", 0, 50_000, lastmod)
	r := runner.New(st)
	ch := &fakeChannel{name: "indexnow", batch: 10000}
	if _, err := r.Run(ctx, s.site, runner.Options{Channels: []channel.Channel{ch}}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		day++
		writeSitemap(b, s.dir, "sitemap.xml", 0, 50_000, lastmod)
		ch.take()
		b.StartTimer()
		rec, err := r.Run(ctx, s.site, runner.Options{Channels: []channel.Channel{ch}})
		if err != nil || rec.Channels["indexnow"].Submitted != 100 {
			b.Fatalf("%v %+v", err, rec.Channels["indexnow"])
		}
	}
}

func newSiteIn(b *testing.B, dir string) *site {
	return siteIn(b, dir, "sitemap.xml", "    resubmitAfter: 0s\n")
}
