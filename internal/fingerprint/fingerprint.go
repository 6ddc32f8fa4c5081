// Package fingerprint reduces an HTML page to a 64-bit hash of what a reader and a search result
// see of it, so that sitepush can tell whether a page really changed when its sitemap's lastmod
// cannot say.
//
// The content is the page's title, meta description, canonical link and robots meta (from the
// head), and the text of its <main>, else of its <article>s, else of its <body> less <header>,
// <nav>, <aside> and <footer> (a sidebar of recent posts is not the page), whitespace folded.
// What changes at every build without the page changing is left out: scripts and styles, every
// attribute in the body (hashed asset names, nonces, data-* ids, form fields' values), comments,
// <template>, <noscript> and <svg> internals, attribute order and quoting, the doctype, and the
// encoding the page was served in.
//
// Two choices are the reader's: text in hidden elements counts (tabs, accordions and the
// segments React streams in hidden <div>s are the page's text, and search engines index them),
// while <noscript> does not (the tokenizer gives it as raw markup, most often a tracking pixel or
// a tag manager's iframe, shown to the few readers without JavaScript). A block element's start
// and end read as a space, as the browser lays them out; inline markup joins words.
//
// The page is read as a stream, once, in memory bounded by MaxBytes whatever its nesting: the
// candidates for the content are hashed side by side and chosen at the end.
package fingerprint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/net/html"
)

// MaxBytes is the most of a page that is read, after decompression: a page longer than that is
// not fingerprinted (the caller leaves it unchecked), which bounds the work and the memory a
// page can cost, gzip bombs included. 2 MiB holds the largest real pages with room to spare.
const MaxBytes = 2 << 20

// maxToken is one byte more than the longest token a page of MaxBytes can hold once decoded: a
// byte of a legacy encoding (windows-1252's 0x80) can take 3 in UTF-8 (E2 82 AC, "€").
const maxToken = 3*MaxBytes + 1

// ErrTooLarge is wrapped by the error of a page longer than MaxBytes after decompression.
var ErrTooLarge = errors.New("the page is larger than 2 MiB after decompression, the most read to fingerprint a page")

// Of reads an HTML page from r and returns its fingerprint. contentType is the answer's
// Content-Type header ("" when unknown); its charset, else the page's <meta charset>, says how
// to decode the page, so that the same text served in another encoding has the same
// fingerprint. A body that starts with gzip's magic bytes is decompressed, for servers that
// compress without saying so. Of reads at most MaxBytes of the page: a page longer than that
// returns an error wrapping ErrTooLarge. Its time is bounded by r (the caller's context and
// timeouts); its work is linear in the page's size.
func Of(r io.Reader, contentType string) (uint64, error) {
	text, err := decoded(r, contentType)
	if err != nil {
		return 0, err
	}
	z := html.NewTokenizer(text)
	// The limit on the input already bounds a token; this bounds it should the input ever not be.
	z.SetMaxBuf(maxToken)
	s := newScanner(z)
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		s.token(tt)
	}
	switch err := z.Err(); {
	case err == io.EOF:
		return s.sum(), nil
	case errors.Is(err, ErrTooLarge), errors.Is(err, html.ErrBufferExceeded):
		return 0, fmt.Errorf("reading the page: %w", ErrTooLarge)
	default:
		return 0, fmt.Errorf("reading the page: %w", err)
	}
}

// sum combines the fields' hashes, each a fixed 8 bytes, so that no text can pass from one field
// to another: a title "ab" and a description "c" differ from a title "a" and a description "bc".
func (s *scanner) sum() uint64 {
	var b [8 * 5]byte
	for i, d := range []*sink{&s.title, &s.description, &s.canonical, &s.robots, s.content()} {
		binary.LittleEndian.PutUint64(b[8*i:], d.d.Sum64())
	}
	return xxhash.Sum64(b[:])
}
