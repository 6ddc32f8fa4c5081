// Package store keeps sitepush's state in SQL: the catalogue of each site's URLs, what every
// channel delivered, execution records, daily statistics, leases and the sites created through
// the API. One Store serves SQLite (embedded, the default) and, written for it from the start,
// PostgreSQL; the few differences between them are explicit in the dialect. Times are passed in
// from Go, never taken from the database's clock.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

type dialect int

const (
	sqlite dialect = iota
	postgres
)

// Store is the state of every site. It is safe for concurrent use, and several processes may
// share one database.
type Store struct {
	// db takes the writes and the transactions; rdb the reads outside them. They are one pool
	// but for a SQLite file, whose reads must not wait behind a write that waits for a lock.
	db, rdb *sql.DB
	dialect dialect
	// name says where the state lives, for messages: a file path, never a password.
	name string
	// marks reads a SQLite file's Mark; nil for PostgreSQL and a state in memory.
	marks *marker
}

// Memory is the `state` that keeps nothing between runs: a SQLite database in memory, for CI.
const Memory = "memory"

// Open opens the state a configuration's `state` names — "sqlite:PATH", a postgres:// URL or
// "memory" — creating and migrating it as needed.
func Open(ctx context.Context, state string) (*Store, error) {
	var s *Store
	var err error
	switch path, ok := strings.CutPrefix(state, "sqlite:"); {
	case state == Memory:
		return emptyState(ctx, Memory)
	case ok:
		s, err = openSQLite(path, false)
	case isPostgres(state):
		s, err = openPostgres(ctx, state, false)
	default:
		return nil, fmt.Errorf("state %q: write sqlite:PATH, a postgres:// URL or memory", schemeOf(state))
	}
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// OpenReadOnly opens the state without ever writing to it, for dry runs: an existing database
// is opened read-only, and a missing one (or a PostgreSQL database without a state yet) stands
// in as an empty state in memory.
func OpenReadOnly(ctx context.Context, state string) (*Store, error) {
	if isPostgres(state) {
		s, err := openPostgres(ctx, state, true)
		if err != nil {
			return nil, err
		}
		if ok, err := s.hasSchema(ctx); err != nil || !ok {
			s.Close()
			if err != nil {
				return nil, err
			}
			return emptyState(ctx, s.name)
		}
		if err := s.checkSchema(ctx); err != nil {
			s.Close()
			return nil, err
		}
		return s, nil
	}
	if state == Memory {
		return emptyState(ctx, Memory)
	}
	path, ok := strings.CutPrefix(state, "sqlite:")
	if !ok {
		return nil, fmt.Errorf("state %q: write sqlite:PATH, a postgres:// URL or memory", schemeOf(state))
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return emptyState(ctx, path)
	}
	s, err := openSQLite(path, true)
	if err != nil {
		return nil, err
	}
	if err := s.checkSchema(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// emptyState is a new state in memory, for a dry run of a state that does not exist yet: named
// as the state it stands for, so that messages name the configured one.
func emptyState(ctx context.Context, name string) (*Store, error) {
	s, err := openSQLite(":memory:", false)
	if err != nil {
		return nil, err
	}
	s.name = name
	return s, s.migrate(ctx)
}

// failed names what the store was doing, and for which site, in an error of the database that
// reaches a user: `store: recording an outcome of site "blog": database is locked`. A damaged
// SQLite file says so. It is deferred by every method of the store; nil stays nil.
func (s *Store) failed(err *error, doing, site string) {
	if *err == nil {
		return
	}
	if site != "" {
		doing += fmt.Sprintf(" of site %q", site)
	}
	*err = fmt.Errorf("store: %s: %w", doing, s.explain(*err))
}

// Close closes the database.
func (s *Store) Close() error {
	if s.marks != nil {
		s.marks.close()
	}
	if s.rdb != s.db {
		s.rdb.Close()
	}
	return s.db.Close()
}

// schemeOf returns what may be shown of a state value: its scheme, never credentials.
func schemeOf(state string) string {
	if i := strings.Index(state, ":"); i > 0 {
		return state[:i] + ":…"
	}
	return "…"
}

// ms converts a time to the stored form, Unix milliseconds; the zero time is NULL.
func ms(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// fromMS converts a stored time back; NULL is the zero time.
func fromMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}

// day is the UTC calendar day of t, as stored in daily statistics.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Name says where the state lives, for messages and logs: a file path, or a PostgreSQL URL
// without its password.
func (s *Store) Name() string { return s.name }

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var v int
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&v); err != nil {
		return s.explain(fmt.Errorf("state %s does not answer: %w", s.name, err))
	}
	return nil
}
