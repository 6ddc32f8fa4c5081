package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"

	"github.com/sitepush/sitepush/internal/human"
)

// body turns the bytes of a response or file into UTF-8 text ready to parse: gzip is detected by
// its magic bytes — whatever the headers or the file name say — and undone (twice at most, for a
// .gz file served with Content-Encoding: gzip); maxBytes then caps the decompressed size, so a
// gzip bomb stops there; a byte order mark is dropped and a declared or UTF-16 encoding is
// transcoded. isXML reports whether the text starts with markup rather than a URL list.
func body(raw io.Reader, maxBytes int64) (r io.Reader, isXML bool, err error) {
	br := bufio.NewReaderSize(raw, 4096)
	for range 2 {
		if magic, _ := br.Peek(2); len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, false, fmt.Errorf("reading gzip: %w", err)
		}
		br = bufio.NewReaderSize(zr, 4096)
	}
	br = bufio.NewReaderSize(&limitReader{r: br, left: maxBytes, limit: maxBytes}, 4096)
	head, _ := br.Peek(512)
	switch {
	case bytes.HasPrefix(head, []byte("\xef\xbb\xbf")):
		_, _ = br.Discard(3)
		head = head[3:]
	case bytes.HasPrefix(head, []byte("\xfe\xff")), bytes.HasPrefix(head, []byte("\xff\xfe")):
		dec := unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder()
		return dec.Reader(br), true, nil
	case bytes.HasPrefix(head, []byte("<\x00")):
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder().Reader(br), true, nil
	case bytes.HasPrefix(head, []byte("\x00<")):
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder().Reader(br), true, nil
	}
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '<' {
		return br, false, nil
	}
	label := declaredEncoding(head)
	switch strings.ToLower(label) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return br, true, nil
	}
	enc, err := htmlindex.Get(label)
	if err != nil {
		return nil, true, fmt.Errorf("the document declares encoding %q, which sitepush cannot decode; publish the sitemap in UTF-8", human.Clip(label, 40))
	}
	return enc.NewDecoder().Reader(br), true, nil
}

// declaredEncoding returns the encoding named by an XML declaration at the start of head.
func declaredEncoding(head []byte) string {
	if len(head) < 5 || !strings.EqualFold(string(head[:5]), "<?xml") {
		return ""
	}
	end := bytes.Index(head, []byte("?>"))
	if end < 0 {
		return ""
	}
	decl := head[:end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) < 2 || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	j := bytes.IndexByte(rest[1:], rest[0])
	if j < 0 {
		return ""
	}
	return string(rest[1 : 1+j])
}

// limitReader fails with ErrTooLarge once more than limit bytes have been read.
type limitReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// Exactly limit bytes is fine; one more is not.
		var one [1]byte
		if n, err := l.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("%w: more than %d bytes after decompression (sitemap.maxBytes); raise sitemap.maxBytes or split the sitemap", ErrTooLarge, l.limit)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
