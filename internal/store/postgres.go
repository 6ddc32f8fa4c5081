package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
)

// isPostgres reports whether a state value names a PostgreSQL database.
func isPostgres(state string) bool {
	return strings.HasPrefix(state, "postgres://") || strings.HasPrefix(state, "postgresql://")
}

// openPostgres opens a pool of connections to a PostgreSQL database. A read-only store asks the
// server to refuse every write in its sessions.
func openPostgres(ctx context.Context, dsn string, readOnly bool) (*Store, error) {
	name := redact(dsn)
	if readOnly {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "default_transaction_read_only=on"
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", name, err)
	}
	// Runs write from a few goroutines; more connections would only queue on the same rows.
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("state %s: %w (check that PostgreSQL runs there, and the user, password and database in the URL)", name, err)
	}
	return &Store{db: db, rdb: db, dialect: postgres, name: name}, nil
}

// redact returns a PostgreSQL URL without its password, for messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	u.RawQuery = ""
	return u.String()
}

// migrationLock is the key of the advisory lock under which instances starting together
// migrate a PostgreSQL database one after the other.
const migrationLock = 0x73697465707573 // "sitepus"

// lockMigrations takes the advisory lock on a connection of its own and returns its release.
func (s *Store) lockMigrations(ctx context.Context) (func(), error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", s.name, err)
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		conn.Close()
		return nil, fmt.Errorf("state %s: waiting for another sitepush's migration: %w", s.name, err)
	}
	return func() {
		conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
		conn.Close()
	}, nil
}

// hasSchema reports whether a PostgreSQL database holds a sitepush state.
func (s *Store) hasSchema(ctx context.Context) (bool, error) {
	var exists bool
	if err := s.db.QueryRowContext(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return false, fmt.Errorf("state %s: %w", s.name, err)
	}
	return exists, nil
}
