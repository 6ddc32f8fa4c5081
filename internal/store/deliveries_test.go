package store_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// openRaw opens a test state and a plain connection to it, to look at what was written.
func openRaw(t *testing.T) (*store.Store, *sql.DB) {
	state := storetest.State(t)
	s, err := store.Open(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, storetest.Raw(t, state)
}

type deliveryRow struct {
	lastmod, deliveredAt sql.NullInt64
	outcome              string
	attempts             int
	lastError            sql.NullString
	lastAttempt          int64
}

func delivery(t *testing.T, db *sql.DB, hash int64, channel string) deliveryRow {
	t.Helper()
	var r deliveryRow
	err := db.QueryRow(`SELECT lastmod, delivered_at, outcome, attempts, last_error, last_attempt FROM deliveries
		WHERE site_id = 'a' AND url_hash = $1 AND channel = $2`, hash, channel).
		Scan(&r.lastmod, &r.deliveredAt, &r.outcome, &r.attempts, &r.lastError, &r.lastAttempt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRecordOutcome(t *testing.T) {
	s, db := openRaw(t)
	lm := t0.Add(-time.Hour)
	due := []channel.Due{{Hash: 1, Lastmod: lm}, {Hash: 2}}
	fail := func(at time.Time, msg string) {
		if err := s.RecordOutcome(ctx, "a", at, channel.Outcome{Channel: "indexnow", URLs: due, Err: msg}); err != nil {
			t.Fatal(err)
		}
	}
	fail(t0, "HTTP 503")
	fail(t0.Add(time.Minute), "HTTP 429")
	if r := delivery(t, db, 1, "indexnow"); r.outcome != "failed" || r.attempts != 2 || r.lastError.String != "HTTP 429" ||
		r.lastmod.Valid || r.deliveredAt.Valid || r.lastAttempt != t0.Add(time.Minute).UnixMilli() {
		t.Errorf("after two failures: %+v", r)
	}
	s.RecordOutcome(ctx, "a", t0.Add(2*time.Minute), channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true})
	if r := delivery(t, db, 1, "indexnow"); r.outcome != "ok" || r.attempts != 3 || r.lastError.Valid ||
		r.lastmod.Int64 != lm.UnixMilli() || r.deliveredAt.Int64 != t0.Add(2*time.Minute).UnixMilli() {
		t.Errorf("after a success: %+v", r)
	}
	if r := delivery(t, db, 2, "indexnow"); r.lastmod.Valid {
		t.Errorf("a URL without lastmod: %+v", r)
	}
	// A failure after a success starts counting again and keeps what was delivered.
	fail(t0.Add(time.Hour), "HTTP 403: key not valid")
	if r := delivery(t, db, 1, "indexnow"); r.outcome != "failed" || r.attempts != 1 || r.lastmod.Int64 != lm.UnixMilli() ||
		r.deliveredAt.Int64 != t0.Add(2*time.Minute).UnixMilli() {
		t.Errorf("failure after a success: %+v", r)
	}
	stats, err := s.DailyStats(ctx, t0, "a")
	want := []store.DayStats{{Day: "2026-03-01", Site: "a", Channel: "indexnow", Total: 8, Successful: 2, Failed: 6}}
	if err != nil || !slices.Equal(stats, want) {
		t.Errorf("stats = %+v, %v", stats, err)
	}
	if err := s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow"}); err != nil {
		t.Errorf("an empty outcome: %v", err)
	}
}

func TestRecordRequestsAndDailyStats(t *testing.T) {
	s := storetest.Open(t)
	reqs := []channel.Request{
		{Channel: "indexnow", Endpoint: "https://e1/indexnow", URLs: 100, Accepted: true, Status: 200},
		{Channel: "indexnow", Endpoint: "https://e1/indexnow", URLs: 50, Status: 503},
		{Channel: "indexnow", Endpoint: "https://e2/indexnow", URLs: 150, Accepted: true, Status: 202},
		// A request accepted on its second try counts once, its URLs once accepted: the 429
		// before is a wait.
		{Channel: "indexnow", Endpoint: "https://e2/indexnow", URLs: 20, Status: 429, Again: true},
		{Channel: "indexnow", Endpoint: "https://e2/indexnow", URLs: 20, Accepted: true, Status: 200, Retry: true},
	}
	s.RecordRequests(ctx, "a", t0, reqs)
	s.RecordRequests(ctx, "b", t0.Add(-48*time.Hour), reqs[:1])
	s.RecordRequests(ctx, "b", t0, nil)
	got, err := s.DailyStats(ctx, t0.Add(-24*time.Hour), "")
	want := []store.DayStats{
		{Day: "2026-03-01", Site: "a", Channel: "indexnow", Endpoint: "https://e1/indexnow", Requests: 2, Total: 150, Successful: 100, Failed: 50},
		{Day: "2026-03-01", Site: "a", Channel: "indexnow", Endpoint: "https://e2/indexnow", Requests: 2, Total: 170, Successful: 170},
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("stats = %+v, %v", got, err)
	}
	if got, _ := s.DailyStats(ctx, t0.Add(-72*time.Hour), "b"); len(got) != 1 || got[0].Day != "2026-02-27" {
		t.Errorf("one site's stats since three days: %+v", got)
	}
}

func TestLastSeenIsRefreshedAtMostDaily(t *testing.T) {
	s, db := openRaw(t)
	p := page(9, t0)
	lastSeen := func() (first, last int64) {
		db.QueryRow(`SELECT first_seen, last_seen FROM urls WHERE url_hash = 9`).Scan(&first, &last)
		return
	}
	s.SyncCatalog(ctx, "a", t0, []channel.Page{p}, nil, false)
	s.SyncCatalog(ctx, "a", t0.Add(23*time.Hour), []channel.Page{p}, nil, false)
	if first, last := lastSeen(); first != t0.UnixMilli() || last != t0.UnixMilli() {
		t.Errorf("within a day: first %d last %d", first, last)
	}
	s.SyncCatalog(ctx, "a", t0.Add(25*time.Hour), []channel.Page{p}, nil, false)
	if first, last := lastSeen(); first != t0.UnixMilli() || last != t0.Add(25*time.Hour).UnixMilli() {
		t.Errorf("after a day: first %d last %d", first, last)
	}
}

func TestRejectedIsNotDueUntilItChanges(t *testing.T) {
	s, db := openRaw(t)
	lm := t0.Add(-time.Hour)
	p := channel.Page{Hash: 3, URL: "https://a.example/bad url", Lastmod: lm}
	s.SyncCatalog(ctx, "a", t0, []channel.Page{p}, nil, false)
	s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: 3, Lastmod: lm}}, Rejected: true, Err: "InvalidUrl"})
	if r := delivery(t, db, 3, "bing"); r.outcome != "rejected" || r.lastError.String != "InvalidUrl" || r.lastmod.Int64 != lm.UnixMilli() {
		t.Errorf("row %+v", r)
	}
	got, _ := s.SyncCatalog(ctx, "a", t0, []channel.Page{p}, []string{"bing"}, false)
	if want := (model.DeliveryState{Known: true, Lastmod: lm, DeliveredAt: t0, Listed: lm}); got[0] != want {
		t.Errorf("state %+v, want %+v: known, not failed", got[0], want)
	}
	stats, _ := s.DailyStats(ctx, t0, "a")
	if len(stats) != 1 || stats[0].Failed != 1 || stats[0].Successful != 0 {
		t.Errorf("a rejection counts as a failure in the statistics: %+v", stats)
	}
}

func TestUnsentIsKnownButNeitherDeliveredNorCounted(t *testing.T) {
	s, db := openRaw(t)
	due := []channel.Due{{Hash: 4, Lastmod: t0.Add(-time.Hour)}, {Hash: 5}}
	if err := s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "feed", URLs: due, Unsent: model.UnsentBacklog}); err != nil {
		t.Fatal(err)
	}
	d := delivery(t, db, 4, "feed")
	if d.outcome != "backlog" || d.deliveredAt.Valid || d.attempts != 0 || d.lastmod.Int64 != t0.Add(-time.Hour).UnixMilli() || d.lastAttempt != t0.UnixMilli() {
		t.Errorf("a URL of a first run's backlog: %+v; want outcome backlog, the lastmod, taken at t0, no delivery time, no attempt", d)
	}
	if got, _ := s.DailyStats(ctx, t0.Add(-24*time.Hour), "a"); len(got) != 0 {
		t.Errorf("URLs never sent in the daily statistics: %+v", got)
	}
}

// A state written before the reason of a URL never sent was kept holds it as 'skipped', with the
// time it was taken as its delivery and an attempt: the migration makes it a backlog's.
func TestMigrationTellsSkippedURLsNeverSent(t *testing.T) {
	state := storetest.State(t)
	s, err := store.Open(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.Raw(t, state)
	for _, q := range []string{
		`INSERT INTO deliveries (site_id, url_hash, channel, lastmod, delivered_at, outcome, attempts, last_error, last_attempt)
			VALUES ('a', 4, 'indexnow', 5, $1, 'skipped', 1, NULL, $1), ('a', 5, 'indexnow', 5, $1, 'ok', 1, NULL, $1)`,
		`DELETE FROM schema_migrations WHERE version = 18`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = append(args, t0.UnixMilli())
		}
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if s, err = store.Open(ctx, state); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if d := delivery(t, db, 4, "indexnow"); d.outcome != "backlog" || d.deliveredAt.Valid || d.attempts != 0 || d.lastAttempt != t0.UnixMilli() {
		t.Errorf("a URL skipped before the migration: %+v; want backlog, no delivery time, no attempt, taken at t0", d)
	}
	if d := delivery(t, db, 5, "indexnow"); d.outcome != "ok" || d.deliveredAt.Int64 != t0.UnixMilli() || d.attempts != 1 {
		t.Errorf("a URL delivered before the migration: %+v; want it as it was", d)
	}
}

func page(h int64, lastmod time.Time) channel.Page {
	return channel.Page{Hash: h, URL: "https://a.example/" + string(rune('a'+h%26)) + time.Duration(h).String(), Lastmod: lastmod}
}

func TestALongErrorIsClipped(t *testing.T) {
	s, db := openRaw(t)
	long := strings.Repeat("é", 2000)
	if err := s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 9}}, Err: long}); err != nil {
		t.Fatal(err)
	}
	d := delivery(t, db, 9, "indexnow")
	if n := len(d.lastError.String); n > 1000 || !utf8.ValidString(d.lastError.String) || !strings.HasSuffix(d.lastError.String, "…") {
		t.Errorf("a 4,000-byte error is kept as %d bytes, valid UTF-8 %v", n, utf8.ValidString(d.lastError.String))
	}
}
