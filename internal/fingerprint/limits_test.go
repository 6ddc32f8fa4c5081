package fingerprint

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGzip: a gzip body the caller could not tell apart is read as the page it holds.
func TestGzip(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			page := fixture(t, name)
			if got, want := sum(t, string(gz(t, []byte(page))), ""), sum(t, page, ""); got != want {
				t.Errorf("gzipped: fingerprint %x, plain %x", got, want)
			}
		})
	}
	t.Run("cut short", func(t *testing.T) {
		z := gz(t, []byte(fixture(t, "wordpress.html")))
		if _, err := Of(bytes.NewReader(z[:len(z)/2]), ""); err == nil || errors.Is(err, ErrTooLarge) {
			t.Errorf("Of(half a gzip stream) = %v, want a read error", err)
		}
	})
}

// counting counts the bytes read through it.
type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestTooLarge: MaxBytes of a page are read, after decompression, and not a byte more.
func TestTooLarge(t *testing.T) {
	exactly := "<p>" + strings.Repeat("a", MaxBytes-3)
	// A gzip stream may hold several members, read one after the other: 1,024 of 1 MiB each make
	// a bomb of 1 GiB in about 2 MB.
	bomb := bytes.Repeat(gz(t, bytes.Repeat([]byte("<p>spam</p>"), 1<<20/11)), 1024)
	tests := []struct {
		name        string
		body        []byte
		contentType string
		tooLong     bool
	}{
		{"exactly MaxBytes", []byte(exactly), "", false},
		{"exactly MaxBytes of one text token", bytes.Repeat([]byte("a"), MaxBytes), "", false},
		{"exactly MaxBytes of windows-1252, three times that in UTF-8", bytes.Repeat([]byte("\x80"), MaxBytes), "text/html; charset=windows-1252", false},
		{"one byte more", []byte(exactly + "a"), "", true},
		{"exactly MaxBytes gzipped", gz(t, []byte(exactly)), "", false},
		{"one byte more gzipped", gz(t, []byte(exactly+"a")), "", true},
		{"a gzip bomb", bomb, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &counting{r: bytes.NewReader(tt.body)}
			_, err := Of(r, tt.contentType)
			if tt.tooLong != errors.Is(err, ErrTooLarge) || !tt.tooLong && err != nil {
				t.Fatalf("Of = %v, too large: %v", err, tt.tooLong)
			}
			if tt.tooLong && r.n > MaxBytes+64<<10 {
				t.Errorf("read %d bytes of the body to find it too large; the limit is %d", r.n, MaxBytes)
			}
		})
	}
	t.Run("the bomb stops early", func(t *testing.T) {
		r := &counting{r: bytes.NewReader(bomb)}
		_, _ = Of(r, "")
		if r.n > len(bomb)/100 {
			t.Errorf("read %d of the bomb's %d compressed bytes; decompression must stop at MaxBytes", r.n, len(bomb))
		}
	})
}

// allocated returns the bytes allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNesting: memory does not grow with nesting. A million nested <div>s (5 MB) are read up to
// MaxBytes and found too large; 400,000 nested elements within MaxBytes are fingerprinted. Either
// costs the same few buffers as a small page, where a stack of open elements would take
// megabytes.
func TestNesting(t *testing.T) {
	const budget = 128 << 10
	tests := []struct {
		name    string
		page    []byte
		tooLong bool
		same    string
	}{
		{"a million nested divs", bytes.Repeat([]byte("<div>"), 1_000_000), true, ""},
		{"400,000 nested divs in main", append(append([]byte("<main>"), bytes.Repeat([]byte("<div>"), 400_000)...), "text"...), false, "<main>text"},
		{"200,000 nested articles and asides", append(bytes.Repeat([]byte("<article><aside>"), 100_000), "text"...), false, "<article>text"},
		{"200,000 nested svgs", append(bytes.Repeat([]byte("<svg>"), 200_000), "text"...), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got uint64
			var err error
			n := allocated(func() { got, err = Of(bytes.NewReader(tt.page), "") })
			if tt.tooLong != errors.Is(err, ErrTooLarge) || !tt.tooLong && err != nil {
				t.Fatalf("Of = %v, too large: %v", err, tt.tooLong)
			}
			if n > budget {
				t.Errorf("allocated %d bytes; the budget is %d", n, budget)
			}
			if !tt.tooLong && got != sum(t, tt.same, "") {
				t.Errorf("fingerprint %x, want that of %q", got, tt.same)
			}
		})
	}
}

// TestReaders: the fingerprint does not depend on how the reader cuts the page, and a reader's
// error (the caller's deadline) ends the read with it.
func TestReaders(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			page := fixture(t, name)
			want := sum(t, page, "")
			for _, r := range []io.Reader{iotest.OneByteReader(strings.NewReader(page)), iotest.OneByteReader(bytes.NewReader(gz(t, []byte(page))))} {
				if got, err := Of(r, ""); err != nil || got != want {
					t.Errorf("a byte at a time: %x, %v; want %x", got, err, want)
				}
			}
			r := io.MultiReader(strings.NewReader(page[:len(page)/2]), iotest.ErrReader(context.DeadlineExceeded))
			if _, err := Of(r, ""); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Of(a reader that fails) = %v, want its error", err)
			}
		})
	}
}
