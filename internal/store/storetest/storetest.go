// Package storetest gives tests a fresh, migrated store on a real database.
package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sitepush/sitepush/internal/store"
)

// Open returns a new store in a SQLite file of its own under t.TempDir(), closed when the test ends.
func Open(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), State(t))
	if err != nil {
		t.Fatalf("opening a test store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// State returns the `state` value of a new, empty database for t.
func State(t testing.TB) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "state.db")
}
