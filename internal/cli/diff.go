package cli

import (
	"bufio"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/version"
)

// runDiff prints what a run given sitemap OLD as its baseline would do with sitemap NEW: the new
// URLs, the changed ones and the removed ones, each with the word saying which — of the site's
// own URLs, on the host of NEW's first URL, as a run announces no other host's; stderr counts the
// others. It submits nothing and needs no configuration.
func runDiff(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	format := fs.String("format", "text", "output `FORMAT`: text (change and URL), tsv (change, url, lastmod, lastmod before) or jsonl")
	userAgent := fs.String("user-agent", "", "`UA` to send as User-Agent instead of sitepush's own")
	pos, err := parseArgs(e, cmd, fs, args, 2, 2)
	if err != nil {
		return err
	}
	if err := oneOf("format", *format, "text", "tsv", "jsonl"); err != nil {
		return err
	}
	ua := *userAgent
	if ua == "" {
		ua = version.UserAgent()
	}
	before, err := readBaseline(e, "OLD", pos[0], ua)
	if err != nil {
		return err
	}
	defer before.Close()
	now, err := readBaseline(e, "NEW", pos[1], ua)
	if err != nil {
		return err
	}
	defer now.Close()
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	var b []byte
	site, err := runner.Diff(before, now, func(c runner.Change) error {
		b = appendChange(b[:0], *format, c)
		_, err := out.Write(b)
		return err
	})
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		return err
	}
	if site.Foreign > 0 {
		fmt.Fprintf(e.stderr, "diff: %s on hosts other than %s (the host of NEW's first URL) left out: a run of that site neither sends nor announces them\n",
			human.Count(site.Foreign, "URL"), site.Host)
	}
	return nil
}

// appendChange appends one line of diff's output in format.
func appendChange(b []byte, format string, c runner.Change) []byte {
	stamp := func(b []byte, t time.Time) []byte {
		if t.IsZero() {
			return b
		}
		return t.UTC().AppendFormat(b, time.RFC3339)
	}
	switch format {
	case "tsv":
		b = append(append(append(append(b, c.Kind...), '\t'), c.URL...), '\t')
		b = append(stamp(b, c.Lastmod), '\t')
		return append(stamp(b, c.Before), '\n')
	case "jsonl":
		b = append(b, `{"change":`...)
		b = appendJSONString(b, c.Kind)
		b = append(b, `,"url":`...)
		b = appendJSONString(b, c.URL)
		for _, f := range []struct {
			key string
			t   time.Time
		}{{"lastmod", c.Lastmod}, {"before", c.Before}} {
			if !f.t.IsZero() {
				b = append(b, fmt.Sprintf(",%q:", f.key)...)
				b = appendJSONString(b, stamp(nil, f.t))
			}
		}
		return append(b, "}\n"...)
	}
	return append(append(append(b, fmt.Sprintf("%-8s", c.Kind)...), c.URL...), '\n')
}
