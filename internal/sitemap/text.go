package sitemap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxTextLine bounds one line of a plain-text sitemap; URLs are far shorter.
const maxTextLine = 64 << 10

// readText reads a plain-text sitemap: one URL per line. The first non-blank line must be an
// http(s) URL, or the body is something else (an error page, a script) and is refused whole;
// later lines that are not URLs are left to emit, which skips them with a warning.
func readText(r io.Reader, emit func(loc []byte) error) error {
	br := bufio.NewReaderSize(r, maxTextLine)
	first := true
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
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
				return notSitemap(fmt.Sprintf("the body begins %s", strconv.Quote(clip(string(v), 60))))
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
