package sitemap

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/human"
)

const (
	// maxTextLine bounds one line of a plain-text sitemap; URLs are far shorter.
	maxTextLine = 64 << 10
	// textQuote is how much of a line that is not a URL a warning quotes.
	textQuote = 100
)

// readText reads a plain-text sitemap: one URL a line. Whether a body is one is decided by its
// lines as a whole, never by their order: it is when any of its lines is an http(s) URL. A body
// with none is something else (an error page, a script) and is refused whole, with what its first
// line looks like but never its content: a sitemap may point at an internal service. URL lines go
// to emit, the others to skip, which warns of them — those before the first URL only once it
// comes, since until then the body may be no sitemap at all. Of those, the first warnLimit are
// kept, clipped as a warning quotes them, and skip gets nil for each of the rest: their warnings
// are only counted.
func readText(r io.Reader, emit func(loc []byte) error, skip func(line []byte)) error {
	br := bufio.NewReaderSize(r, maxTextLine)
	urls := false
	first := "" // what the first non-blank line looks like
	var held [][]byte
	unkept := 0
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line too long to be a URL: drop it, up to its end.
			if first == "" {
				first = looksLike(trimSpace(line))
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			line = []byte("(a line longer than 64 KiB)")
		}
		if err != nil && err != io.EOF {
			return err
		}
		if v := trimSpace(line); len(v) > 0 {
			if first == "" {
				first = looksLike(v)
			}
			switch {
			case httpPrefix(v) > 0:
				if !urls {
					urls = true
					for _, h := range held {
						skip(h)
					}
					for range unkept {
						skip(nil)
					}
				}
				if e := emit(v); e != nil {
					return e
				}
			case urls:
				skip(v)
			case len(held) < warnLimit:
				held = append(held, []byte(human.Clip(string(v), textQuote)))
			default:
				unkept++
			}
		}
		if err == io.EOF {
			switch {
			case first == "":
				return notSitemap("the body is empty")
			case !urls:
				return notSitemap("the body is neither XML nor a list of URLs: " + first)
			}
			return nil
		}
	}
}

// looksLike tells roughly what kind of content line is, without quoting it.
func looksLike(line []byte) string {
	lower := bytes.ToLower(line[:min(len(line), 512)])
	switch {
	case len(line) == 0:
		return "it is blank"
	case line[0] == '{' || line[0] == '[':
		return "it looks like JSON"
	case bytes.Contains(lower, []byte("<html")) || bytes.Contains(lower, []byte("<!doctype")) ||
		bytes.Contains(lower, []byte("<head")) || bytes.Contains(lower, []byte("<body")):
		return "it looks like an HTML page"
	case !utf8.Valid(line) || bytes.ContainsFunc(line, func(r rune) bool { return r < ' ' && r != '\t' && r != '\r' && r != '\f' || r == 0x7f }):
		return "it looks like binary data"
	}
	return "it is plain text"
}
