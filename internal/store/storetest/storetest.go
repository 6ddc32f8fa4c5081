// Package storetest gives tests a fresh, migrated store on a real database: a SQLite file of
// their own, or, when the environment variable SITEPUSH_TEST_POSTGRES holds the URL of a
// PostgreSQL server (postgres://postgres@127.0.0.1:5432/postgres), a new database on it, dropped
// when the test ends. The same tests thus run on both engines.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver "pgx"
	_ "modernc.org/sqlite"             // the driver "sqlite"

	"github.com/sitepush/sitepush/internal/store"
)

// Env names the variable that selects PostgreSQL.
const Env = "SITEPUSH_TEST_POSTGRES"

// Postgres reports whether the tests run on PostgreSQL.
func Postgres() bool { return os.Getenv(Env) != "" }

// Open returns a new store on a database of its own, closed when the test ends.
func Open(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), State(t))
	if err != nil {
		t.Fatalf("opening a test store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// State returns the `state` value of a new, empty database for t: a SQLite file not created
// yet, or a PostgreSQL database just created.
func State(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(Env)
	if admin == "" {
		return "sqlite:" + filepath.Join(t.TempDir(), "state.db")
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "sitepush_test_" + hex.EncodeToString(b)
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("creating a test database on %s: %v (is PostgreSQL running?)", Env, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", admin)
		if err != nil {
			return
		}
		defer db.Close()
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("dropping test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// Raw opens a plain connection to a test state, for tests that look at what was written or
// damage it on purpose; it is closed when the test ends.
func Raw(t testing.TB, state string) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", state
	if path, ok := strings.CutPrefix(state, "sqlite:"); ok {
		driver, dsn = "sqlite", "file:"+path
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
