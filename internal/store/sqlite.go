package store

import (
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

// Bounds of the SQLite pool. Each connection keeps a page cache of its own (cache_size, 8 MiB at
// most) and a file descriptor; readers share the database in WAL mode and writers take turns
// anyway, so a burst of requests queues for a few connections instead of opening one each.
const (
	maxSQLiteConns  = 8
	idleSQLiteConns = 2
	idleSQLiteTime  = time.Minute
)

// openSQLite opens a SQLite database in WAL mode: readers never wait for the writer, and a busy
// timeout makes processes that share the file wait for each other instead of failing. Write
// transactions take the lock when they begin, which spares SQLite's deadlock-prone upgrade of a
// read lock.
func openSQLite(path string, readOnly bool) (*Store, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(30000)", "foreign_keys(1)", "synchronous(NORMAL)", "cache_size(-8192)"} {
		q.Add("_pragma", p)
	}
	switch {
	case path == ":memory:":
	case readOnly:
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	default:
		q.Add("_pragma", "journal_mode(WAL)")
		q.Set("_txlock", "immediate")
	}
	dsn := "file:" + path + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", path, err)
	}
	if path == ":memory:" {
		// Every connection to :memory: is a database of its own, gone when it closes.
		db.SetMaxOpenConns(1)
	} else {
		db.SetMaxOpenConns(maxSQLiteConns)
		db.SetMaxIdleConns(idleSQLiteConns)
		db.SetConnMaxIdleTime(idleSQLiteTime)
	}
	if err := ping(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("state %s: %w (check that the directory exists and is writable)", path, err)
	}
	return &Store{db: db, dialect: sqlite, name: path}, nil
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
