package store_test

import (
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestMark: the mark changes with a write of this store and with one of another process's store
// on the same state, and stays while the state is only read — on SQLite: a PostgreSQL server's
// snapshot moves with the writes of the other tests' databases.
func TestMark(t *testing.T) {
	state := storetest.State(t)
	s, err := store.Open(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := store.Open(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	mark := func() string {
		t.Helper()
		m, err := s.Mark(ctx)
		if err != nil || m == "" {
			t.Fatalf("mark %q, %v", m, err)
		}
		return m
	}
	first := mark()
	if _, err := s.SiteReads(ctx, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ChannelDays(ctx, t0.AddDate(0, 0, -7), ""); err != nil {
		t.Fatal(err)
	}
	if m := mark(); m != first && !storetest.Postgres() {
		t.Fatalf("reads changed the mark: %s → %s", first, m)
	}
	startRun(t, s, "a", "manual", t0)
	second := mark()
	if second == first {
		t.Fatal("a run started and the mark stayed")
	}
	if _, err := other.AcquireLease(ctx, "b", "elsewhere", t0, time.Minute); err != nil {
		t.Fatalf("lease: %v", err)
	}
	if m := mark(); m == second {
		t.Fatal("another process took a lease and the mark stayed")
	}
}

// TestMarkInMemory: a state in memory cannot tell; its mark is empty.
func TestMarkInMemory(t *testing.T) {
	s, err := store.Open(ctx, "sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if m, err := s.Mark(ctx); m != "" || err != nil {
		t.Fatalf("mark %q, %v", m, err)
	}
}
