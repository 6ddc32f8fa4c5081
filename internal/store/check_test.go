package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckWritable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := CheckWritable(ctx, "sqlite:"+filepath.Join(dir, "new.db")); err != nil {
		t.Errorf("a new database in a writable directory: %v", err)
	}
	err := CheckWritable(ctx, "sqlite:"+filepath.Join(dir, "no", "such", "s.db"))
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "mkdir -p") {
		t.Errorf("a database in a missing directory: %v, want the directory named with its fix", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the check left %d files behind", len(entries))
	}
	s, err := Open(ctx, "sqlite:"+filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := CheckWritable(ctx, "sqlite:"+filepath.Join(dir, "s.db")); err != nil {
		t.Errorf("an existing database: %v", err)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		if err := CheckWritable(ctx, "sqlite:"+filepath.Join(ro, "s.db")); err == nil || !strings.Contains(err.Error(), "write access") {
			t.Errorf("a read-only directory: %v, want the fix", err)
		}
	}
	if err := CheckWritable(ctx, "mysql://x"); err == nil {
		t.Error("an unknown scheme passed")
	}
}

func TestCheckWritablePostgres(t *testing.T) {
	if err := CheckWritable(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"); err == nil ||
		!strings.Contains(err.Error(), "check that PostgreSQL runs there") {
		t.Errorf("an unreachable PostgreSQL: %v, want the fix", err)
	}
}
