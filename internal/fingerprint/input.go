package fingerprint

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// sniffBytes is how much of a page is looked at for its encoding: a <meta charset> is meant to be
// in the first 1024 bytes, but pages often declare it later in the head, past large comments and
// inline scripts, and browsers still honour it.
const sniffBytes = 16 << 10

// decoded turns the bytes of r into the page's UTF-8 text: gzip is undone when the body starts
// with its magic bytes, MaxBytes is counted on the decompressed bytes, and a page in another
// encoding is transcoded.
func decoded(r io.Reader, contentType string) (io.Reader, error) {
	var magic [2]byte
	n, err := io.ReadFull(r, magic[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("reading the page: %w", err)
	}
	r = io.MultiReader(bytes.NewReader(magic[:n]), r)
	if n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("the page starts as gzip does (1f 8b) but is not gzip: %w", err)
		}
		r = zr
	}
	r = &limited{r: r, left: MaxBytes}
	head := make([]byte, sniffBytes)
	n, err = io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("reading the page: %w", err)
	}
	head = head[:n]
	dec, bom := decoder(head, contentType)
	r = io.MultiReader(bytes.NewReader(head[bom:]), r)
	if dec != nil {
		r = transform.NewReader(r, dec)
	}
	return r, nil
}

// decoder returns the decoder of a page that starts with head and was served with contentType,
// nil for UTF-8, and the length of the byte order mark to drop (decoders would keep it as a
// character). The order is the HTML standard's: a byte order mark, the Content-Type charset, a
// <meta> charset; a page that declares nothing is UTF-8 when its head is (today's web), else
// windows-1252 (the standard's guess).
func decoder(head []byte, contentType string) (*encoding.Decoder, int) {
	e, name, certain := charset.DetermineEncoding(head, contentType)
	if !certain {
		if declared, declaredName := charset.Lookup(metaCharset(head)); declared != nil {
			e, name = declared, declaredName
			if name == "utf-16be" || name == "utf-16le" {
				// A page that could be read to its <meta> is not UTF-16, whatever it says.
				name = "utf-8"
			}
		} else if validUTF8(head) {
			name = "utf-8"
		}
	}
	bom := 0
	switch {
	case bytes.HasPrefix(head, []byte("\xef\xbb\xbf")):
		bom = 3
	case bytes.HasPrefix(head, []byte("\xfe\xff")), bytes.HasPrefix(head, []byte("\xff\xfe")):
		bom = 2
	}
	if name == "utf-8" {
		return nil, bom
	}
	return e.NewDecoder(), bom
}

// validUTF8 reports whether head is UTF-8, but for a character cut at its end.
func validUTF8(head []byte) bool {
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) {
				head = head[:i]
			}
			break
		}
	}
	return utf8.Valid(head)
}

// limited reads r and fails with ErrTooLarge once more than left bytes come.
type limited struct {
	r     io.Reader
	left  int64
	probe [1]byte
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// Exactly MaxBytes is fine; one byte more is not.
		n, err := io.ReadFull(l.r, l.probe[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
