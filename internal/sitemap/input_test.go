package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestBodyDecodes(t *testing.T) {
	doc := `<urlset><url><loc>https://a.example/é</loc></url></urlset>`
	utf16le, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(doc))
	utf16be, _ := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(doc))
	utf16leNoBOM, _ := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder().Bytes([]byte(doc))
	latin1Doc := `<?xml version="1.0" encoding="ISO-8859-1"?>` + doc
	latin1, _ := charmap.ISO8859_1.NewEncoder().Bytes([]byte(latin1Doc))
	cp1252, _ := charmap.Windows1252.NewEncoder().Bytes([]byte(strings.Replace(latin1Doc, "ISO-8859-1", "windows-1252", 1)))
	tests := []struct {
		name string
		in   []byte
	}{
		{"utf-8", []byte(doc)},
		{"utf-8 BOM", append([]byte("\xef\xbb\xbf"), doc...)},
		{"gzip", gz(t, []byte(doc))},
		{"gzip twice", gz(t, gz(t, []byte(doc)))},
		{"utf-16 LE with BOM", utf16le},
		{"utf-16 BE with BOM", utf16be},
		{"utf-16 LE without BOM", utf16leNoBOM},
		{"declared ISO-8859-1", latin1},
		{"declared windows-1252, gzipped", gz(t, cp1252)},
		{"declared utf-8 in single quotes", []byte(`<?xml version='1.0' encoding='utf-8'?>` + doc)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, isXML, err := body(bytes.NewReader(tc.in), 1<<20)
			if err != nil || !isXML {
				t.Fatalf("body: isXML %v, %v", isXML, err)
			}
			out, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), "<loc>https://a.example/é</loc>") {
				t.Errorf("decoded to %q", out)
			}
		})
	}
}

func TestBodyRefusesUnknownEncoding(t *testing.T) {
	_, _, err := body(strings.NewReader(`<?xml version="1.0" encoding="x-klingon"?><urlset/>`), 1<<20)
	if err == nil || !strings.Contains(err.Error(), `"x-klingon"`) || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("err = %v, want one naming the encoding and the fix", err)
	}
}

func TestBodyCorruptGzip(t *testing.T) {
	_, _, err := body(bytes.NewReader([]byte{0x1f, 0x8b, 0, 0}), 1<<20)
	if err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("err = %v, want a gzip error", err)
	}
}

func TestBodyLimit(t *testing.T) {
	read := func(in []byte, limit int64) ([]byte, error) {
		r, _, err := body(bytes.NewReader(in), limit)
		if err != nil {
			return nil, err
		}
		return io.ReadAll(r)
	}
	exact := bytes.Repeat([]byte("x"), 5000)
	if out, err := read(exact, 5000); err != nil || len(out) != 5000 {
		t.Errorf("exactly maxBytes: %d bytes, %v; want all of it", len(out), err)
	}
	out, err := read(append(exact, 'y'), 5000)
	if !errors.Is(err, ErrTooLarge) || len(out) != 5000 || !strings.Contains(err.Error(), "sitemap.maxBytes") {
		t.Errorf("one byte over: %d bytes, %v; want 5000 then ErrTooLarge naming sitemap.maxBytes", len(out), err)
	}
	// A gzip bomb: 64 MiB of zeros in 64 KiB stops at the limit, after decompression.
	var bomb bytes.Buffer
	w, _ := gzip.NewWriterLevel(&bomb, gzip.BestSpeed)
	zeros := make([]byte, 1<<20)
	for range 64 {
		w.Write(zeros)
	}
	w.Close()
	out, err = read(bomb.Bytes(), 4<<20)
	if !errors.Is(err, ErrTooLarge) || len(out) != 4<<20 {
		t.Errorf("gzip bomb: %d bytes, %v; want 4 MiB then ErrTooLarge", len(out), err)
	}
}
