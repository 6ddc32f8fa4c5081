package store

import (
	"fmt"
	"strconv"
)

// inHashes is the SQL condition "column is one of a list of hashes" bound to parameter n, and
// hashParam the value to bind. A list of thousands of parameters costs SQLite (modernc) six times
// one JSON parameter, measured; PostgreSQL takes an array.
func (s *Store) inHashes(column string, n int) string {
	if s.dialect == postgres {
		return fmt.Sprintf("%s = ANY($%d)", column, n)
	}
	return fmt.Sprintf("%s IN (SELECT value FROM json_each($%d))", column, n)
}

func (s *Store) hashParam(hashes []int64) any {
	if s.dialect == postgres {
		return hashes
	}
	b := make([]byte, 0, 2+len(hashes)*20)
	b = append(b, '[')
	for i, h := range hashes {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, h, 10)
	}
	return string(append(b, ']'))
}
