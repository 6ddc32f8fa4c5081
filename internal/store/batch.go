package store

import (
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

// valuesList returns the rows of a VALUES list: n copies of row, in which each "?" stands for a
// parameter of the row's own, numbered on from first ("$1" and the like are shared by every row).
// ($1, ?, ?) for 2 rows from 3 is "($1, $3, $4), ($1, $5, $6)".
func valuesList(n, first int, row string) string {
	var b strings.Builder
	b.Grow(n * (len(row) + 12))
	p := first
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := 0; j < len(row); j++ {
			if row[j] != '?' {
				b.WriteByte(row[j])
				continue
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(p))
			p++
		}
		b.WriteByte(')')
	}
	return b.String()
}
