package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// openTestSQLite opens a migrated SQLite store of the test's own. The tests of this file look
// inside the store (its pool, its query plans), which storetest's callers cannot.
func openTestSQLite(t *testing.T) *Store {
	t.Helper()
	s, err := openSQLite(filepath.Join(t.TempDir(), "state.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLastGoodRunSeeks checks that a site's last good run is found through an index, never by a
// scan of the runs: metrics read it for every site at every refresh, whatever the history.
func TestLastGoodRunSeeks(t *testing.T) {
	text := queryPlan(t, openTestSQLite(t), lastFinishSQL, "a", "ok")
	if strings.Contains(text, "SCAN runs") || !strings.Contains(text, "runs_by_outcome") {
		t.Errorf("the last good run is not read by an index seek: %s", text)
	}
}

// TestPagesToCheckReadsTheRotation checks that the pages to check are a range read of the index
// of the rotation, in its order: a site of many pages reads the head of its line alone, and one
// with no page in the rotation reads nothing.
func TestPagesToCheckReadsTheRotation(t *testing.T) {
	text := queryPlan(t, openTestSQLite(t), pagesToCheckSQL, "a", 10)
	if !strings.Contains(text, "SEARCH urls USING INDEX urls_rotation") || strings.Contains(text, "TEMP B-TREE") {
		t.Errorf("the pages to check are not a range read of the rotation's index: %s", text)
	}
}

// TestHoldsContentProbesAnIndex checks that whether a site has a page with a content, or in the
// rotation, is a probe of indexes that hold no row of a site that never checked content: every
// outcome recorded, and every sync without a page to check, asks it.
func TestHoldsContentProbesAnIndex(t *testing.T) {
	s := openTestSQLite(t)
	if text := queryPlan(t, s, holdsContentSQL, "a"); !strings.Contains(text, "urls_checked") || strings.Contains(text, "SCAN") || strings.Contains(text, "TEMP B-TREE") {
		t.Errorf("whether a site has a page with a content is not read from the index urls_checked: %s", text)
	}
	if text := queryPlan(t, s, checksContentSQL, "a"); !strings.Contains(text, "urls_checked") || !strings.Contains(text, "urls_rotation") || strings.Contains(text, "SCAN urls") || strings.Contains(text, "TEMP B-TREE") {
		t.Errorf("whether a site checks content is not read from the indexes urls_rotation and urls_checked: %s", text)
	}
}

// queryPlan returns SQLite's plan of query, its steps joined by "; ".
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.db.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}

// TestSQLitePoolIsBounded checks that concurrent requests share a few connections: each SQLite
// connection keeps a page cache of its own, so an unbounded pool lets a burst of requests
// (scrapes of /metrics, dashboards) hold memory and file descriptors long after it. Writes go
// through one connection, reads through a few of their own.
func TestSQLitePoolIsBounded(t *testing.T) {
	s := openTestSQLite(t)
	if w, r := s.db.Stats().MaxOpenConnections, s.rdb.Stats().MaxOpenConnections; w != 1 || r == 0 || r > sqliteReaders {
		t.Errorf("SQLite pools: at most %d connections for writes and %d for reads, want 1 and 1..%d", w, r, sqliteReaders)
	}
}

// TestADamagedStateSaysSo checks that a state file that is not a database, or whose pages were
// damaged, is called what it is, with the way out — not "check that the directory exists".
func TestADamagedStateSaysSo(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 5000), 0o644)

	damaged := filepath.Join(dir, "damaged.db")
	s, err := openSQLite(damaged, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	s.Close()
	f, err := os.OpenFile(damaged, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(bytes.Repeat([]byte{0xa5}, 4096*3), 4096) // every page after the header's
	f.Close()

	for _, path := range []string{garbage, damaged} {
		for _, open := range []func(context.Context, string) (*Store, error){Open, OpenReadOnly} {
			s, err := open(context.Background(), "sqlite:"+path)
			if err == nil {
				s.Close()
				t.Errorf("%s opened", filepath.Base(path))
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, "is damaged or is not a sitepush state") || !strings.Contains(msg, "restore it from a backup") {
				t.Errorf("%s: %v", filepath.Base(path), err)
			}
		}
	}
}

// TestReadsDoNotQueueBehindWrites holds the write lock from another process's connection while
// writers of this process queue for it: a read must still answer at once — /healthz, /status and
// the metrics read while runs write.
func TestReadsDoNotQueueBehindWrites(t *testing.T) {
	s := openTestSQLite(t)
	other, err := openSQLite(s.name, false)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.db.BeginTx(context.Background(), nil) // immediate: it takes the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	writers, cancel := context.WithCancel(context.Background())
	defer cancel()
	writing := 2 * sqliteReaders
	for range writing {
		go s.MarkQuotaFull(writers, "site", "2026-03-01")
	}
	// The writers queue behind the lock: one holds the write connection, waiting for the lock,
	// and the others wait for that connection.
	for deadline := time.Now().Add(30 * time.Second); s.db.Stats().InUse != 1 || s.db.Stats().WaitCount < int64(writing-1); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("the writers did not queue: %+v", s.db.Stats())
		}
	}
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if _, err := s.LastGoodRun(ctx, "site"); err != nil {
		t.Errorf("a read while writers wait for the lock: %v", err)
	}
}
