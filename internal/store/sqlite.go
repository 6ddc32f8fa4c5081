package store

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	msqlite "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

// Bounds of the SQLite pools. Writes go through one connection: SQLite lets one writer at a time
// anyway, and a write waiting for another process's lock (busy_timeout) then holds only that
// one, while reads go on beside it through a few connections of their own — WAL readers never
// wait for the writer. Each connection keeps a page cache (cache_size, 2 MiB at most) and a file
// descriptor, so a burst of requests queues for these few instead of opening one each.
const (
	sqliteReaders   = 4
	idleSQLiteConns = 2
	idleSQLiteTime  = time.Minute
)

// openSQLite opens a SQLite database in WAL mode, with a pool for writes and one for reads (the
// same one for an in-memory or a read-only database). A busy timeout makes processes that share
// the file wait for each other instead of failing. Write transactions take the lock when they
// begin, which spares SQLite's deadlock-prone upgrade of a read lock.
func openSQLite(path string, readOnly bool) (*Store, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(30000)", "foreign_keys(1)", "synchronous(NORMAL)", "cache_size(-2048)", "temp_store(MEMORY)"} {
		q.Add("_pragma", p)
	}
	reads := url.Values{}
	switch {
	case path == ":memory:":
	case readOnly:
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	default:
		reads = cloneValues(q)
		reads.Add("_pragma", "query_only(1)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Set("_txlock", "immediate")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", path, err)
	}
	s := &Store{db: db, rdb: db, dialect: sqlite, name: path}
	switch {
	case path == ":memory:":
		// Every connection to :memory: is a database of its own, gone when it closes.
		db.SetMaxOpenConns(1)
	case readOnly:
		limit(db, sqliteReaders)
	default:
		limit(db, 1)
	}
	if err := ping(db); err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	if path != ":memory:" {
		dsn := "file:" + path + "?" + q.Encode()
		if len(reads) > 0 {
			dsn = "file:" + path + "?" + reads.Encode()
		}
		s.marks = &marker{open: func() (*sql.DB, error) {
			db, err := sql.Open("sqlite", dsn)
			if err != nil {
				return nil, err
			}
			db.SetMaxOpenConns(1)
			return db, nil
		}}
	}
	if len(reads) > 0 {
		if s.rdb, err = sql.Open("sqlite", "file:"+path+"?"+reads.Encode()); err != nil {
			db.Close()
			return nil, fmt.Errorf("state %s: %w", path, err)
		}
		limit(s.rdb, sqliteReaders)
	}
	return s, nil
}

// limit bounds a SQLite pool to n connections, of which a few stay open when idle, for a while.
func limit(db *sql.DB, n int) {
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(min(n, idleSQLiteConns))
	db.SetConnMaxIdleTime(idleSQLiteTime)
}

// cloneValues copies URL query values.
func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// ping opens the first connection. Switching a new database to WAL takes a lock SQLite does not
// wait for, so processes opening a new state file together may find it busy: they try again.
func ping(db *sql.DB) error {
	var err error
	for attempt := range 50 {
		if err = db.Ping(); err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") && !strings.Contains(err.Error(), "database is locked") {
			return err
		}
		time.Sleep(time.Duration(10+attempt) * time.Millisecond)
	}
	return err
}

// SQLite's primary result codes that need words of their own.
const (
	sqlitePerm     = 3
	sqliteReadOnly = 8
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// sqliteCode returns the primary result code of a SQLite error, 0 for another error.
func sqliteCode(err error) int {
	var se *msqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// openError says why a SQLite state could not be opened, and what to do.
func openError(path string, err error) error {
	switch sqliteCode(err) {
	case sqliteNotADB, sqliteCorrupt:
		return corruptError(path, err)
	case sqliteReadOnly, sqlitePerm:
		return fmt.Errorf("state %s: %w (sitepush may not write it: check the permissions of the file and its directory)", path, err)
	case sqliteFull:
		return fmt.Errorf("state %s: %w (the disk is full: free some space)", path, err)
	}
	return fmt.Errorf("state %s: %w (check that the directory exists and is writable)", path, err)
}

// corruptError is a state file that is not a SQLite database, or a damaged one.
func corruptError(path string, err error) error {
	return fmt.Errorf("state %s is damaged or is not a sitepush state (%w): restore it from a backup "+
		"(docs/deployment.md, Backups), or move it away to start afresh — every page is then submitted again", path, err)
}

// explain turns a damaged SQLite database's errors into corruptError; other errors stay as they are.
func (s *Store) explain(err error) error {
	if s.dialect == sqlite {
		if c := sqliteCode(err); c == sqliteCorrupt || c == sqliteNotADB {
			return corruptError(s.name, err)
		}
	}
	return err
}
