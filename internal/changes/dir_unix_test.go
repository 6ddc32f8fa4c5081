//go:build unix

package changes

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// link makes a symbolic link in a site.
func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// TestDirLinks follows symbolic links that stay inside the directory, and refuses those that
// lead out of it: relative or absolute, to a file or to a directory.
func TestDirLinks(t *testing.T) {
	dir := site(t, "index.html", "a/b.html")
	top := filepath.Dir(dir)
	link(t, "b.html", filepath.Join(dir, "a", "alias.html"))
	link(t, "a", filepath.Join(dir, "docs"))
	link(t, "../a/b.html", filepath.Join(dir, "a", "up.html"))
	link(t, "../../secret", filepath.Join(dir, "a", "out.html"))
	link(t, filepath.Join(top, "secret"), filepath.Join(dir, "abs.html"))
	link(t, "..", filepath.Join(dir, "parent"))
	link(t, "/etc", filepath.Join(dir, "etc"))
	d := openDir(t, dir)
	for _, path := range []string{"/a/alias", "/docs/b", "/a/up"} {
		if content, _, _, err := page(t, d, path); err != nil || content != "a/b.html" {
			t.Errorf("%s: read %q, %v; want a/b.html through a link inside the directory", path, content, err)
		}
	}
	for _, path := range []string{"/a/out", "/abs", "/parent/secret", "/etc/passwd"} {
		content, _, _, err := page(t, d, path)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: read %q, %v; want the link out of the directory refused", path, content, err)
		}
	}
}

// TestDirSpecialFiles passes over a FIFO and a device as no file, without blocking on the
// FIFO, which no one writes.
func TestDirSpecialFiles(t *testing.T) {
	dir := site(t, "index.html", "a/")
	if err := unix.Mkfifo(filepath.Join(dir, "a", "pipe.html"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := openDir(t, dir)
	_, _, _, err := page(t, d, "/a/pipe")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "pipe.html (a FIFO)") {
		t.Errorf("error %v, want no file: pipe.html (a FIFO)", err)
	}
	// A FIFO that took a file's place after Dir looked: opened at once, and refused.
	f, err := d.open("a/pipe.html")
	var nr notRegular
	if f != nil || !errors.As(err, &nr) || nr.what != "a FIFO" {
		t.Errorf("opened %v, %v; want a FIFO refused", f, err)
	}

	// Only root may make a device (/dev/null's numbers).
	if err := unix.Mknod(filepath.Join(dir, "a", "dev.html"), unix.S_IFCHR|0o644, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("no device to test with: %v", err)
	}
	_, _, _, err = page(t, d, "/a/dev")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "dev.html (a device)") {
		t.Errorf("error %v, want no file: dev.html (a device)", err)
	}
}
