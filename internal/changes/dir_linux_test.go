package changes

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestDirOpensNoSpecialFile checks, with inotify, that Dir never opens a FIFO or a device, not
// even without blocking: a device may act on its open (a tape rewinds), and where the system
// has no O_NONBLOCK the look before the open is the only guard against a FIFO.
func TestDirOpensNoSpecialFile(t *testing.T) {
	dir := site(t, "index.html", "a/b.html")
	a := filepath.Join(dir, "a")
	if err := unix.Mkfifo(filepath.Join(a, "pipe.html"), 0o644); err != nil {
		t.Fatal(err)
	}
	special := []string{"pipe.html"}
	if err := unix.Mknod(filepath.Join(a, "dev.html"), unix.S_IFCHR|0o644, int(unix.Mkdev(1, 3))); err == nil {
		special = append(special, "dev.html")
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, a, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	d := openDir(t, dir)
	for _, path := range []string{"/a/pipe", "/a/dev", "/a/b"} {
		_, _, _, _ = page(t, d, path)
	}
	// The events are queued as the files are opened: all are there once Open has returned.
	opened := map[string]bool{}
	buf := make([]byte, 4096)
	n, err := unix.Read(fd, buf)
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		t.Fatal(err)
	}
	for off := 0; off+unix.SizeofInotifyEvent <= n; {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
		opened[string(bytes.TrimRight(name, "\x00"))] = true
		off += unix.SizeofInotifyEvent + int(ev.Len)
	}
	if !opened["b.html"] {
		t.Fatalf("inotify saw no open of b.html (saw %v): it cannot tell", opened)
	}
	for _, name := range special {
		if opened[name] {
			t.Errorf("%s was opened", name)
		}
	}
}
