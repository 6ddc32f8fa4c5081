package sitemap

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// maxTextLine bounds one line of a plain-text sitemap; URLs are far shorter.
const maxTextLine = 64 << 10

// readText reads a plain-text sitemap: one URL per line. The first non-blank line must be an
// http(s) URL, or the body is something else (an error page, a script) and is refused whole,
// with what it looks like but never its content: a sitemap may point at an internal service.
// Later lines that are not URLs are left to emit, which skips them with a warning.
func readText(r io.Reader, emit func(loc []byte) error) error {
	br := bufio.NewReaderSize(r, maxTextLine)
	first := true
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if first {
				return notText(trimSpace(line))
			}
			// A line too long to be a URL: drop it, up to its end.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			line = []byte("(a line longer than 64 KiB)")
		}
		if err != nil && err != io.EOF {
			return err
		}
		if v := trimSpace(line); len(v) > 0 {
			if first && httpPrefix(v) == 0 {
				return notText(v)
			}
			first = false
			if e := emit(v); e != nil {
				return e
			}
		}
		if err == io.EOF {
			if first {
				return notSitemap("the body is empty")
			}
			return nil
		}
	}
}

// notText refuses a body whose first line is not a URL, saying what it looks like.
func notText(line []byte) error {
	return notSitemap("the body is neither XML nor a list of URLs: " + looksLike(line))
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
