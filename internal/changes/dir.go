package changes

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Dir is a built site on disk (changes.dir), from which pages are read instead of fetched: in
// CI before the site is published, or on the web server itself. It never reads a file outside
// its directory, whatever the URL: a URL path's ".." and the like are refused before the disk
// is touched, and the directory is opened as an os.Root, which refuses any other way out,
// a symbolic link included. It is safe for concurrent use.
type Dir struct {
	path string
	root *os.Root
}

// OpenDir opens the directory a site is built into. Close releases it.
func OpenDir(path string) (*Dir, error) {
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("changes.dir %s cannot be read: %w; it must be the directory the site is built into (the one holding the home page's index.html), readable by sitepush", path, err)
	}
	return &Dir{path: path, root: root}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }

// Open opens the file that serves the page at u, as a static web server maps it: /a/b/ is
// a/b/index.html; /a/b is a/b.html, else a/b/index.html, else the file a/b; / is index.html.
// The path is u.Path, percent-decoded; the host, query and fragment are not looked at. Only a
// regular file is opened: a directory, a FIFO or a device is passed over as no file.
//
// name is the file opened and tried the files looked for, each shown under the directory's
// path as given to OpenDir. A page with no file gives an error wrapping fs.ErrNotExist that
// names them; a path that would lead out of the directory, one wrapping fs.ErrInvalid.
func (d *Dir) Open(u *url.URL) (f io.ReadCloser, name string, tried []string, err error) {
	names, why := candidates(u.Path)
	if why != "" {
		return nil, "", nil, refused{page: u.String(), dir: d.path, why: why}
	}
	var notes []string
	for _, rel := range names {
		shown := filepath.Join(d.path, filepath.FromSlash(rel))
		tried = append(tried, shown)
		file, err := d.openRegular(rel)
		var nr notRegular
		switch {
		case err == nil:
			return file, shown, tried, nil
		case errors.As(err, &nr):
			notes = append(notes, fmt.Sprintf("%s (%s)", shown, nr.what))
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			notes = append(notes, shown)
		default:
			return nil, "", tried, fmt.Errorf("%s: reading %s: %w", u, shown, err)
		}
	}
	return nil, "", tried, noFile{page: u.String(), tried: notes}
}

// openRegular opens a regular file of the directory. It looks before it opens, so that a FIFO
// or a device is never opened at all.
func (d *Dir) openRegular(rel string) (*os.File, error) {
	fi, err := d.root.Stat(rel)
	if err != nil {
		return nil, err
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	return d.open(rel)
}

// open opens a file that was a regular file when looked at: without blocking where the system
// allows, and it looks again at what it opened, so that a file swapped for a FIFO in between
// cannot hold the read.
func (d *Dir) open(rel string) (*os.File, error) {
	f, err := d.root.OpenFile(rel, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = regular(fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regular says what a file is when it is not a regular file.
func regular(fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return notRegular{"a directory"}
	case m&fs.ModeNamedPipe != 0:
		return notRegular{"a FIFO"}
	case m&fs.ModeDevice != 0:
		return notRegular{"a device"}
	}
	return notRegular{"not a regular file"}
}

// notRegular is the error of a file that is not a regular file: what it is instead.
type notRegular struct{ what string }

func (e notRegular) Error() string { return e.what + ", not a regular file" }

// candidates maps a URL path to the files that may serve it, relative to the directory, in the
// order a static web server tries them, or says why it refuses the path: one that could name
// something outside the directory has a "." or ".." segment (percent-encoded ones are decoded
// by then), an empty segment ("//"), a backslash or a NUL, or is a name the system does not
// take as local (on Windows, "C:x" or "NUL").
func candidates(path string) (names []string, why string) {
	switch {
	case path == "" || path == "/":
		return []string{"index.html"}, ""
	case !strings.HasPrefix(path, "/"):
		return nil, fmt.Sprintf("the path %q does not start with /", path)
	case strings.ContainsRune(path, 0):
		return nil, fmt.Sprintf("the path %q holds a NUL byte", path)
	case strings.ContainsRune(path, '\\'):
		return nil, fmt.Sprintf("the path %q holds a backslash", path)
	}
	rel, dir := strings.CutSuffix(path[1:], "/")
	for seg := range strings.SplitSeq(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return nil, fmt.Sprintf("the path %q has a segment %q", path, seg)
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, fmt.Sprintf("the path %q is not a local file name here", path)
	}
	if dir {
		return []string{rel + "/index.html"}, ""
	}
	return []string{rel + ".html", rel + "/index.html", rel}, ""
}

// refused is the error of a page whose path could lead out of the directory.
type refused struct{ page, dir, why string }

func (e refused) Error() string {
	return fmt.Sprintf("%s: refused: %s; a page's file is looked for only inside %s", e.page, e.why, e.dir)
}

// Is makes a refused path an fs.ErrInvalid.
func (e refused) Is(target error) bool { return target == fs.ErrInvalid }

// noFile is the error of a page no file serves.
type noFile struct {
	page  string
	tried []string
}

func (e noFile) Error() string {
	return fmt.Sprintf("%s: no file; tried %s", e.page, strings.Join(e.tried, ", "))
}

// Is makes a page with no file an fs.ErrNotExist.
func (e noFile) Is(target error) bool { return target == fs.ErrNotExist }
