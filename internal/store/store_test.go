package store_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

var (
	ctx = context.Background()
	t0  = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

func TestOpenMigratesOnceAndRefusesNewerSchemas(t *testing.T) {
	state := storetest.State(t)
	for range 2 {
		s, err := store.Open(ctx, state)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	db := storetest.Raw(t, state)
	var n, latest int
	db.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &latest)
	// Numbers may have gaps while branches add migrations: each file counts once.
	files, err := os.ReadDir("migrations/sqlite")
	if err != nil {
		t.Fatal(err)
	}
	if n != len(files) || n < 2 {
		t.Errorf("%d migrations recorded up to version %d after two opens, of %d files: each must be applied once", n, latest, len(files))
	}
	db.Exec(`INSERT INTO schema_migrations VALUES (999, 0)`)
	_, err = store.Open(ctx, state)
	if err == nil || !strings.Contains(err.Error(), "schema version 999, written by a newer sitepush") || !strings.Contains(err.Error(), "upgrade sitepush") {
		t.Errorf("err = %v", err)
	}
	if _, err := store.Open(ctx, "postgres://u:secret@127.0.0.1:1/db"); err == nil || strings.Contains(err.Error(), "secret") ||
		!strings.Contains(err.Error(), "postgres://u@127.0.0.1:1/db") {
		t.Errorf("a PostgreSQL server that is not there: %v", err)
	}
	if _, err := store.Open(ctx, "mysql://u:secret@h/db"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("an unsupported state: %v", err)
	}
}

func TestOpenReadOnly(t *testing.T) {
	state := storetest.State(t)
	// A missing state is an empty one, and stays missing.
	s, err := store.OpenReadOnly(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.SyncCatalog(ctx, "a", t0, []channel.Page{{Hash: 1, URL: "https://a.example/"}}, []string{"indexnow"}, true); err != nil || got[0].Known {
		t.Errorf("empty read-only state: %v %v", got, err)
	}
	if s.Name() == ":memory:" || s.Name() == "" {
		t.Errorf("a missing state is named %q, not as configured (%s)", s.Name(), state)
	}
	s.Close()
	w, err := store.Open(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	w.SyncCatalog(ctx, "a", t0, []channel.Page{{Hash: 1, URL: "https://a.example/"}}, []string{"indexnow"}, false)
	w.Close()
	r, err := store.OpenReadOnly(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if urls, err := r.URLs(ctx, "a", []int64{1}); err != nil || urls[0] != "https://a.example/" {
		t.Errorf("read-only read: %v %v", urls, err)
	}
	if err := r.SaveRun(ctx, &model.Record{Site: "a", Trigger: "cli", StartedAt: t0}); err == nil {
		t.Error("a read-only state accepted a write")
	}
}

func TestLeaseRace(t *testing.T) {
	s := storetest.Open(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := 0
	for i := range 8 {
		wg.Go(func() {
			_, err := s.AcquireLease(ctx, "a", string(rune('a'+i)), t0, time.Minute)
			var held *model.LeaseHeld
			if err != nil && !errors.As(err, &held) {
				t.Error(err)
			}
			if err == nil {
				mu.Lock()
				winners++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if winners != 1 {
		t.Errorf("%d holders of one lease", winners)
	}
}

func TestConcurrentFirstOpens(t *testing.T) {
	for round := range 10 {
		state := storetest.State(t)
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				s, err := store.Open(ctx, state)
				if err != nil {
					t.Errorf("round %d: %v", round, err)
					return
				}
				s.Close()
			})
		}
		wg.Wait()
	}
}

func TestErrorsSayWhatAndWhichSite(t *testing.T) {
	s := storetest.Open(t)
	s.Close() // every call now fails in the driver
	for _, tc := range []struct {
		want string
		call func() error
	}{
		{`store: recording an outcome of site "blog": `, func() error {
			return s.RecordOutcome(ctx, "blog", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1}}, Delivered: true})
		}},
		{`store: syncing the catalogue of site "blog": `, func() error {
			_, err := s.SyncCatalog(ctx, "blog", t0, []channel.Page{{Hash: 1, URL: "https://blog.example/"}}, []string{"indexnow"}, false)
			return err
		}},
		{`store: taking the lease of site "blog": `, func() error {
			_, err := s.AcquireLease(ctx, "blog", "me", t0, time.Second)
			return err
		}},
		{`store: reserving Bing quota of site "blog": `, func() error { _, err := s.ReserveQuota(ctx, "blog", "2026-03-01", 1, 10); return err }},
		{`store: recording the end of run 7 of site "blog": `, func() error {
			return s.SaveRun(ctx, &model.Record{ID: 7, Site: "blog", FinishedAt: t0})
		}},
		{`store: reading runs of site "blog": `, func() error { _, err := s.Runs(ctx, "blog", 1); return err }},
		{`store: creating site "blog": `, func() error { return s.CreateSite(ctx, "blog", []byte(`{}`), t0) }},
		{`store: reading the sites created through the API: `, func() error { _, err := s.Sites(ctx); return err }},
	} {
		if err := tc.call(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v; want it to begin %q", err, tc.want)
		}
	}
}
