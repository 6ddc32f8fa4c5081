package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Mark returns a value that changes whenever a write to the state may have been committed since
// it was last read, by this process or another: what was read from the state before a mark
// was taken is still true while Mark returns the same value. An empty mark says nothing (a
// state in memory): whatever was read may have changed.
//
// On SQLite it is PRAGMA data_version, read through a connection kept for it alone, as that
// pragma counts the commits of every other connection. On PostgreSQL it is the current snapshot:
// it changes when a transaction of the server that writes begins or ends — one of another
// database on the same server too, which only costs a needless read again.
func (s *Store) Mark(ctx context.Context) (string, error) {
	switch {
	case s.dialect == postgres:
		var snap string
		err := s.rdb.QueryRowContext(ctx, `SELECT CAST(pg_current_snapshot() AS TEXT)`).Scan(&snap)
		return snap, err
	case s.marks == nil:
		return "", nil
	}
	return s.marks.read(ctx)
}

// marker keeps the SQLite connection that reads data_version. The pragma's value is that
// connection's own, so a connection opened again starts a new epoch: marks of two connections
// never compare equal.
type marker struct {
	mu    sync.Mutex
	open  func() (*sql.DB, error)
	db    *sql.DB
	conn  *sql.Conn
	epoch int
}

func (m *marker) read(ctx context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conn == nil {
		if m.db == nil {
			db, err := m.open()
			if err != nil {
				return "", err
			}
			m.db = db
		}
		conn, err := m.db.Conn(ctx)
		if err != nil {
			return "", err
		}
		m.conn, m.epoch = conn, m.epoch+1
	}
	var version int64
	if err := m.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
		m.conn.Close()
		m.conn = nil
		return "", err
	}
	return fmt.Sprintf("%d.%d", m.epoch, version), nil
}

func (m *marker) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conn != nil {
		m.conn.Close()
	}
	if m.db != nil {
		m.db.Close()
	}
}
