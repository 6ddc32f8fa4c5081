package cli

import (
	"bufio"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/sitemap"
	"github.com/sitepush/sitepush/internal/version"
)

// runURLs prints every page URL of a sitemap as it is read, each once; warnings go to stderr.
// It fails only when nothing could be read at all.
func runURLs(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	format := fs.String("format", "text", "output `FORMAT`: text (one URL a line), tsv (url<TAB>lastmod) or jsonl")
	userAgent := fs.String("user-agent", "", "`UA` to send as User-Agent instead of sitepush's own")
	pos, err := parseArgs(e, cmd, fs, args, 1, 1)
	if err != nil {
		return err
	}
	if err := oneOf("format", *format, "text", "tsv", "jsonl"); err != nil {
		return err
	}
	target := pos[0]
	opt := sitemap.Defaults()
	opt.UserAgent = *userAgent
	if opt.UserAgent == "" {
		opt.UserAgent = version.UserAgent()
	}
	opt.Warn = func(w sitemap.Warning) { fmt.Fprintf(e.stderr, "warning: %s\n", w) }
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	line := lineFormat(*format)
	var buf []byte
	res, err := sitemap.NewReader(opt).Read(e.ctx, []string{target}, func(en sitemap.Entry) error {
		buf = line(buf[:0], en)
		_, err := out.Write(buf)
		return err
	})
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	unreadable := res.Unreadable()
	for _, s := range res.Failed() {
		if unreadable {
			fmt.Fprintf(e.stderr, "error: %s: %v\n", s.URL, s.Err)
		} else {
			fmt.Fprintf(e.stderr, "warning: could not read %s: %v\n", s.URL, s.Err)
		}
	}
	if unreadable {
		return fmt.Errorf("%s: %s", target, res.Unread())
	}
	return nil
}

// lineFormat returns the function that appends one output line in the chosen format.
func lineFormat(format string) func([]byte, sitemap.Entry) []byte {
	switch format {
	case "tsv":
		return func(b []byte, en sitemap.Entry) []byte {
			b = append(b, en.URL...)
			b = append(b, '\t')
			if !en.Lastmod.IsZero() {
				b = en.Lastmod.UTC().AppendFormat(b, time.RFC3339Nano)
			}
			return append(b, '\n')
		}
	case "jsonl":
		return func(b []byte, en sitemap.Entry) []byte {
			b = append(b, `{"url":`...)
			b = appendJSONString(b, en.URL)
			b = append(b, `,"lastmod":`...)
			if en.Lastmod.IsZero() {
				b = append(b, "null"...)
			} else {
				b = append(b, '"')
				b = en.Lastmod.UTC().AppendFormat(b, time.RFC3339Nano)
				b = append(b, '"')
			}
			b = append(b, `,"sitemap":`...)
			b = appendJSONString(b, en.Sitemap)
			return append(b, "}\n"...)
		}
	}
	return func(b []byte, en sitemap.Entry) []byte {
		b = append(b, en.URL...)
		return append(b, '\n')
	}
}
