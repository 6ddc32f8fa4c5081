package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// BenchmarkSyncCatalog is a run's lookup of a 10,000-page site, delivered on one channel, that
// changed nothing: what every daily run of a site costs the catalogue. "checked" has the pages on a
// sitemap checked by content (channel.Page.Check), in the rotation already.
func BenchmarkSyncCatalog(b *testing.B) {
	for _, check := range []bool{false, true} {
		name := map[bool]string{false: "lastmod", true: "checked"}[check]
		b.Run(name, func(b *testing.B) {
			s := storetest.Open(b)
			pages := make([]channel.Page, 10_000)
			due := make([]channel.Due, len(pages))
			size := 0
			for i := range pages {
				h := int64(uint64(i+1) * 0x9E3779B97F4A7C15)
				pages[i] = channel.Page{Hash: h, URL: fmt.Sprintf("https://a.example/posts/%d", i), Lastmod: t0.Add(-time.Duration(i) * time.Minute), Check: check}
				due[i] = channel.Due{Hash: h, Lastmod: pages[i].Lastmod}
				size += len(pages[i].URL)
			}
			ch := []string{"indexnow"}
			if _, err := s.SyncCatalog(ctx, "a", t0, pages, ch, false); err != nil {
				b.Fatal(err)
			}
			if err := s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := s.SyncCatalog(ctx, "a", t0.Add(time.Hour), pages, ch, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecordOutcome is a channel's acceptance of 10,000 known URLs, recorded as it arrives:
// of a site that never checked content ("lastmod"), and of one whose pages were checked
// ("checked"), whose deliveries record the content sent.
func BenchmarkRecordOutcome(b *testing.B) {
	for _, check := range []bool{false, true} {
		name := map[bool]string{false: "lastmod", true: "checked"}[check]
		b.Run(name, func(b *testing.B) {
			s := storetest.Open(b)
			pages := make([]channel.Page, 10_000)
			due := make([]channel.Due, len(pages))
			checks := make([]model.PageCheck, len(pages))
			for i := range pages {
				h := int64(uint64(i+1) * 0x9E3779B97F4A7C15)
				pages[i] = channel.Page{Hash: h, URL: fmt.Sprintf("https://a.example/posts/%d", i), Lastmod: t0, Check: check}
				due[i] = channel.Due{Hash: h, Lastmod: t0}
				checks[i] = model.PageCheck{Hash: h, At: t0, Content: uint64(h)}
			}
			if _, err := s.SyncCatalog(ctx, "a", t0, pages, nil, false); err != nil {
				b.Fatal(err)
			}
			if check {
				if err := s.RecordChecks(ctx, "a", checks); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(due)) * 16)
			at := t0
			for b.Loop() {
				at = at.Add(time.Second)
				if err := s.RecordOutcome(ctx, "a", at, channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
