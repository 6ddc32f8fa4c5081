package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The schema is a list of numbered SQL files per engine, applied in order, each once, each in
// its own transaction, and recorded in schema_migrations.
//
//go:embed migrations
var migrations embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func (s *Store) migrations() ([]migration, error) {
	dir := "migrations/sqlite"
	if s.dialect == postgres {
		dir = "migrations/postgres"
	}
	files, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, f := range files {
		num, _, ok := strings.Cut(f.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: the name must start with a number and '_'", f.Name())
		}
		body, err := fs.ReadFile(migrations, path.Join(dir, f.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: f.Name(), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate brings the schema up to date, refusing a database written by a newer sitepush. On
// PostgreSQL, instances starting together take turns under an advisory lock; on SQLite, each
// migration's write transaction serializes them.
func (s *Store) migrate(ctx context.Context) error {
	if s.dialect == postgres {
		unlock, err := s.lockMigrations(ctx)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return s.explain(fmt.Errorf("state %s: %w", s.name, err))
	}
	all, err := s.migrations()
	if err != nil {
		return err
	}
	current, err := s.version(ctx)
	if err != nil {
		return err
	}
	if latest := all[len(all)-1].version; current > latest {
		return fmt.Errorf("state %s has schema version %d, written by a newer sitepush; this one knows up to %d: upgrade sitepush", s.name, current, latest)
	}
	for _, m := range all {
		if m.version <= current {
			continue
		}
		if err := s.apply(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// apply runs one migration and records it, atomically.
func (s *Store) apply(ctx context.Context, m migration) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Another process may have applied it while this one waited for the lock.
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = $1`, m.version).Scan(&done); err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("state %s: migration %s: %w", s.name, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`, m.version, time.Now().UnixMilli()); err != nil {
		return err
	}
	return tx.Commit()
}

// version is the highest migration applied, 0 for a new database.
func (s *Store) version(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, s.explain(fmt.Errorf("state %s: %w", s.name, err))
	}
	return int(v.Int64), nil
}

// checkSchema verifies, without writing, that a database opened read-only has this build's schema.
func (s *Store) checkSchema(ctx context.Context) error {
	all, err := s.migrations()
	if err != nil {
		return err
	}
	v, err := s.version(ctx)
	if err != nil {
		return fmt.Errorf("%w (is it a sitepush state file?)", err)
	}
	switch latest := all[len(all)-1].version; {
	case v > latest:
		return fmt.Errorf("state %s has schema version %d, written by a newer sitepush; this one knows up to %d: upgrade sitepush", s.name, v, latest)
	case v < latest:
		return fmt.Errorf("state %s has schema version %d and needs version %d: run once without --dry-run to upgrade it", s.name, v, latest)
	}
	return nil
}
