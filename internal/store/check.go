package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckWritable tells, without changing the state, whether a run could open it and write to it:
// for SQLite, that the file's directory exists and takes new files (SQLite writes its journal
// beside the database) and that an existing file may be written; for PostgreSQL, that the
// server answers with the URL's user and database. `sitepush check` asks it, so that a check
// that passes is not followed by a run that fails to open its state.
func CheckWritable(ctx context.Context, state string) error {
	if isPostgres(state) {
		s, err := openPostgres(ctx, state, true)
		if err != nil {
			return err
		}
		return s.Close()
	}
	path, ok := strings.CutPrefix(state, "sqlite:")
	if !ok && state != Memory {
		return fmt.Errorf("state %q: write sqlite:PATH, a postgres:// URL or memory", schemeOf(state))
	}
	if !ok || path == ":memory:" {
		return nil
	}
	return checkSQLiteFile(path)
}

// checkSQLiteFile checks the directory and the file of a SQLite database.
func checkSQLiteFile(path string) error {
	dir := filepath.Dir(path)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("state sqlite:%s: the directory %s does not exist: create it (mkdir -p %s) or point state at another file", path, dir, dir)
	case err != nil:
		return fmt.Errorf("state sqlite:%s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("state sqlite:%s: %s is not a directory: point state at a file in a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".sitepush-check-*")
	if err != nil {
		return fmt.Errorf("state sqlite:%s: the directory %s does not take new files (%v): SQLite writes its journal there; "+
			"give the user running sitepush write access to it", path, dir, errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil // the first run creates it
	case err != nil:
		return fmt.Errorf("state sqlite:%s: the file cannot be written (%v): give the user running sitepush write access to it", path, errors.Unwrap(err))
	}
	return f.Close()
}
