package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// rowsPerStatement bounds the rows of one multi-row statement. With at most three parameters a
// row it stays far under the bound parameters SQLite (32,766) and PostgreSQL (65,535) take, and
// measured, larger statements save nothing more.
const rowsPerStatement = 500

// inChunks calls write with the bounds of consecutive pieces of n rows sorted by hash (hashOf
// gives row i's), each of at most rowsPerStatement rows and never holding one hash twice:
// PostgreSQL refuses an upsert that meets one row twice, so a repeated hash goes to the next
// piece, and is written after the first as one statement a row would.
func inChunks(n int, hashOf func(i int) int64, write func(lo, hi int) error) error {
	lo := 0
	for i := 1; i <= n; i++ {
		if i == n || i-lo == rowsPerStatement || hashOf(i) == hashOf(i-1) {
			if err := write(lo, i); err != nil {
				return err
			}
			lo = i
		}
	}
	return nil
}

// valuesList returns the rows of a VALUES list: n copies of row, in which "?" stands for a
// parameter of the row's own and "$1" and the like for those every row shares, as bind reads them.
func valuesList(n int, row string) string {
	var b strings.Builder
	b.Grow(n * (len(row) + 4))
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		b.WriteString(row)
		b.WriteByte(')')
	}
	return b.String()
}

// bind numbers the parameters of a multi-row statement for the dialect, and returns its text and
// arguments. In query, "$k" is shared[k-1] and each "?" the next of perRow. PostgreSQL numbers
// each row's parameters after the shared ones. SQLite gets anonymous "?" parameters only, a shared
// one bound again where it recurs: modernc finds a numbered or named parameter by a linear search,
// which made a statement of 1,500 parameters cost 20 times its own execution, measured.
func (s *Store) bind(query string, shared, perRow []any) (string, []any) {
	var b strings.Builder
	b.Grow(len(query) + len(perRow)*4)
	args := make([]any, 0, len(shared)+len(perRow))
	if s.dialect == postgres {
		args = append(append(args, shared...), perRow...)
	}
	next := len(shared) + 1
	for i := 0; i < len(query); i++ {
		switch c := query[i]; {
		case c == '?' && s.dialect == postgres:
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(next))
			next++
		case c == '?':
			b.WriteByte('?')
			args = append(args, perRow[0])
			perRow = perRow[1:]
		case c == '$' && s.dialect == sqlite:
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			k, _ := strconv.Atoi(query[i+1 : j])
			b.WriteByte('?')
			args = append(args, shared[k-1])
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), args
}

// prepared holds, for one transaction, its multi-row statements of rowsPerStatement rows: of the
// same text each time, each is prepared once. SQLite parsed a 500-row statement afresh at every
// call: a sixth of the work of a site's first run, measured.
type prepared map[string]*sql.Stmt

// exec runs a multi-row statement of rows rows in tx.
func (p prepared) exec(ctx context.Context, tx *sql.Tx, query string, rows int, args []any) error {
	if rows != rowsPerStatement {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	}
	st, ok := p[query]
	if !ok {
		var err error
		if st, err = tx.PrepareContext(ctx, query); err != nil {
			return err
		}
		p[query] = st
	}
	_, err := st.ExecContext(ctx, args...)
	return err
}
