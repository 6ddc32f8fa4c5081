package store_test

import (
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
)

// manyURLs is more URLs than one statement writes, so that they take several.
const manyURLs = 1203

func TestOutcomesOfManyURLsWithARepeatedOne(t *testing.T) {
	s, db := openRaw(t)
	var due []channel.Due
	for h := int64(manyURLs); h > 0; h-- {
		due = append(due, channel.Due{Hash: h, Lastmod: t0.Add(-time.Duration(h) * time.Minute)})
	}
	due = append(due, channel.Due{Hash: 7})
	for i := range 4 {
		o := channel.Outcome{Channel: "indexnow", URLs: due, Err: "HTTP 503"}
		if err := s.RecordOutcome(ctx, "a", t0.Add(time.Duration(i)*time.Minute), o); err != nil {
			t.Fatal(err)
		}
	}
	if r := delivery(t, db, 1000, "indexnow"); r.outcome != "failed" || r.attempts != 4 {
		t.Errorf("after four failures: %+v", r)
	}
	if r := delivery(t, db, 7, "indexnow"); r.attempts != 8 {
		t.Errorf("a URL twice in each of four failures: %d attempts, want 8", r.attempts)
	}
	var rows, attempts int
	db.QueryRow(`SELECT count(*) FROM deliveries`).Scan(&rows)
	db.QueryRow(`SELECT count(*) FROM failed_attempts WHERE url_hash = 600`).Scan(&attempts)
	if rows != manyURLs || attempts != 3 {
		t.Errorf("%d deliveries, want %d; %d attempts kept of a URL, want 3", rows, manyURLs, attempts)
	}
	if err := s.RecordOutcome(ctx, "a", t0.Add(time.Hour), channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}); err != nil {
		t.Fatal(err)
	}
	if r := delivery(t, db, 1000, "indexnow"); r.outcome != "ok" || r.attempts != 5 || r.lastmod.Int64 != t0.Add(-1000*time.Minute).UnixMilli() {
		t.Errorf("after a success: %+v", r)
	}
	if r := delivery(t, db, 7, "indexnow"); r.outcome != "ok" || r.lastmod.Valid {
		t.Errorf("the last of a URL given twice wins: %+v", r)
	}
	stats, err := s.DailyStats(ctx, t0, "a")
	if err != nil || len(stats) != 1 || stats[0].Total != 5*len(due) || stats[0].Successful != len(due) {
		t.Errorf("stats = %+v, %v", stats, err)
	}
}

func TestCatalogueOfManyPages(t *testing.T) {
	s, db := openRaw(t)
	pages := make([]channel.Page, manyURLs)
	for i := range pages {
		pages[i] = page(int64(manyURLs-i), t0.Add(-time.Hour))
	}
	if _, err := s.SyncCatalog(ctx, "a", t0, pages, []string{"indexnow"}, false); err != nil {
		t.Fatal(err)
	}
	for i := range 600 {
		pages[i].Lastmod = t0
	}
	pages[700].URL += "/moved"
	states, err := s.SyncCatalog(ctx, "a", t0.Add(time.Minute), pages, []string{"indexnow"}, false)
	if err != nil || len(states) != manyURLs {
		t.Fatalf("%d states, %v", len(states), err)
	}
	var rows, changed int
	var moved string
	db.QueryRow(`SELECT count(*) FROM urls`).Scan(&rows)
	db.QueryRow(`SELECT count(*) FROM urls WHERE lastmod = $1 AND first_seen = $2 AND last_seen = $3`,
		t0.UnixMilli(), t0.UnixMilli(), t0.Add(time.Minute).UnixMilli()).Scan(&changed)
	db.QueryRow(`SELECT url FROM urls WHERE url_hash = $1`, pages[700].Hash).Scan(&moved)
	if rows != manyURLs || changed != 600 || moved != pages[700].URL {
		t.Errorf("%d URLs (want %d), %d changed (want 600), moved one %q", rows, manyURLs, changed, moved)
	}
}
