package changes

import (
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// site writes a built site under a temporary directory: each file's path, relative to the
// site, holds its own name; a path ending in / is a directory. A file "secret" lies beside
// the site, outside it. It returns the site's directory.
func site(t *testing.T, files ...string) string {
	t.Helper()
	top := t.TempDir()
	if err := os.WriteFile(filepath.Join(top, "secret"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "public")
	for _, f := range append([]string{""}, files...) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if f == "" || strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// openDir opens a site's directory for a test.
func openDir(t *testing.T, dir string) *Dir {
	t.Helper()
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// page opens the file of a page, and reads it whole when there is one.
func page(t *testing.T, d *Dir, raw string) (content, name string, tried []string, err error) {
	t.Helper()
	u, perr := url.Parse("https://example.com" + raw)
	if perr != nil {
		t.Fatal(perr)
	}
	f, name, tried, err := d.Open(u)
	if err != nil {
		if f != nil {
			t.Errorf("%s: a file with the error %v", raw, err)
		}
		return "", name, tried, err
	}
	defer f.Close()
	b, rerr := io.ReadAll(f)
	if rerr != nil {
		t.Fatal(rerr)
	}
	return string(b), name, tried, nil
}

// under shows relative paths under a site's directory, as Dir shows them.
func under(dir string, rel ...string) []string {
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = filepath.Join(dir, filepath.FromSlash(r))
	}
	return out
}

func TestDirMapping(t *testing.T) {
	dir := site(t, "index.html", "a/b.html", "a/c/index.html", "a/d", "feed.xml",
		"a/f.html/", "a/f/index.html", "café.html", "x.html", "%2e%2e/y.html")
	d := openDir(t, dir)
	tests := []struct {
		path  string
		file  string   // the file that serves it
		tried []string // the files looked for, to it
	}{
		{"", "index.html", []string{"index.html"}},
		{"/", "index.html", []string{"index.html"}},
		{"/a/b", "a/b.html", []string{"a/b.html"}},
		{"/a/c/", "a/c/index.html", []string{"a/c/index.html"}},
		{"/a/c", "a/c/index.html", []string{"a/c.html", "a/c/index.html"}},
		{"/a/d", "a/d", []string{"a/d.html", "a/d/index.html", "a/d"}},
		{"/feed.xml", "feed.xml", []string{"feed.xml.html", "feed.xml/index.html", "feed.xml"}},
		// A directory named f.html is no page: the next name serves.
		{"/a/f", "a/f/index.html", []string{"a/f.html", "a/f/index.html"}},
		{"/caf%C3%A9", "café.html", []string{"café.html"}},
		{"/a%2Fb", "a/b.html", []string{"a/b.html"}},
		{"/x?y=1#z", "x.html", []string{"x.html"}},
		// Encoded twice, the dots are a name like any other, inside the directory.
		{"/%252e%252e/y", "%2e%2e/y.html", []string{"%2e%2e/y.html"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			content, name, tried, err := page(t, d, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if content != tt.file || name != filepath.Join(dir, filepath.FromSlash(tt.file)) {
				t.Errorf("read %q from %s, want the file %s", content, name, tt.file)
			}
			if want := under(dir, tt.tried...); !slices.Equal(tried, want) {
				t.Errorf("tried %q, want %q", tried, want)
			}
		})
	}
}

func TestDirNoFile(t *testing.T) {
	dir := site(t, "index.html", "a/b.html", "a/d", "a/e.html/")
	d := openDir(t, dir)
	tests := []struct {
		path  string
		tried []string
		words string // in the error: the files tried, and what stood in the way
	}{
		{"/a/nope", []string{"a/nope.html", "a/nope/index.html", "a/nope"}, "no file; tried " + strings.Join(under(dir, "a/nope.html", "a/nope/index.html", "a/nope"), ", ")},
		{"/a/b/", []string{"a/b/index.html"}, "no file; tried " + filepath.Join(dir, "a", "b", "index.html")},
		// a/d is a file: a/d/index.html cannot exist.
		{"/a/d/", []string{"a/d/index.html"}, "no file; tried " + filepath.Join(dir, "a", "d", "index.html")},
		{"/a/e", []string{"a/e.html", "a/e/index.html", "a/e"}, filepath.Join(dir, "a", "e.html") + " (a directory)"},
		{"/a", []string{"a.html", "a/index.html", "a"}, filepath.Join(dir, "a") + " (a directory)"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, _, tried, err := page(t, d, tt.path)
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), tt.words) {
				t.Fatalf("error %v, want fs.ErrNotExist saying %q", err, tt.words)
			}
			if want := under(dir, tt.tried...); !slices.Equal(tried, want) {
				t.Errorf("tried %q, want %q", tried, want)
			}
		})
	}
}

// TestDirRefused asks for pages whose paths could lead out of the directory: each is refused
// before the disk is touched, though the secret beside the site exists.
func TestDirRefused(t *testing.T) {
	dir := site(t, "index.html", "a/b.html", "a/b/index.html")
	d := openDir(t, dir)
	tests := []struct {
		path string
		why  string
	}{
		{"/../secret", `segment ".."`},
		{"/../../etc/passwd", `segment ".."`},
		{"/%2e%2e/secret", `segment ".."`},
		{"/%2e%2e%2fsecret", `segment ".."`},
		{"/%2E%2E/%2E%2E/etc/passwd", `segment ".."`},
		{"/a/../../secret", `segment ".."`},
		{"/a/../b", `segment ".."`},
		{"/a/./b", `segment "."`},
		{"//etc/passwd", `segment ""`},
		{"/a//b", `segment ""`},
		{"/..%5csecret", "backslash"},
		{"/a%5C..%5C..%5Csecret", "backslash"},
		{"/a%00b", "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			content, _, tried, err := page(t, d, tt.path)
			if !errors.Is(err, fs.ErrInvalid) || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), "refused") {
				t.Fatalf("read %q, error %v; want it refused: %s", content, err, tt.why)
			}
			if len(tried) > 0 {
				t.Errorf("looked for %q", tried)
			}
		})
	}
	// A URL whose path is not absolute (an opaque one, or one made up in code).
	for _, u := range []*url.URL{{Path: "etc/passwd"}, {Opaque: "x", Path: "../secret"}} {
		if f, _, _, err := d.Open(u); f != nil || !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("%#v: error %v, want it refused", u, err)
		}
	}
}

func TestOpenDir(t *testing.T) {
	dir := site(t, "index.html")
	for _, path := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "index.html")} {
		d, err := OpenDir(path)
		if err == nil {
			d.Close()
			t.Errorf("%s: opened", path)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "the directory the site is built into") {
			t.Errorf("%s: error %q names neither the path nor the fix", path, msg)
		}
	}
}
