package sitemap

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/sitepush/sitepush/internal/human"
)

// undecodedWhy explains why a value holding an undecodable reference is not used.
const undecodedWhy = "it holds an entity reference other than XML's five (&amp; &lt; &gt; &quot; &apos;) or a character reference to no character; sitepush never expands entities, not even those a DOCTYPE declares"

// doc delivers the entries of one sitemap document.
type doc struct {
	w        *walk
	src      source
	idx      int
	base     *url.URL
	children []source
}

// xml parses an XML document: a urlset, an index, RSS or Atom.
func (d *doc) xml(r io.Reader) error {
	x := &xmlDoc{lx: newLexer(r)}
	x.emit = func(e *entry) error {
		if x.kind == KindIndex {
			return d.child(e)
		}
		return d.pages(e)
	}
	err := x.run()
	d.w.res.Sitemaps[d.idx].Kind = x.kind
	if x.truncated && err == nil {
		// Entries are counted as they are delivered: deliver those still queued first.
		if err := d.w.flush(d.idx); err != nil {
			return err
		}
		d.w.warn(d.idx, "ends before its closing tag, as if cut off; "+x.cutKeeps(d.w.res.Sitemaps[d.idx].Entries))
	}
	return err
}

// child records the sitemaps an index entry lists: one for each of its <loc>.
func (d *doc) child(e *entry) error {
	if len(e.locs) == 0 {
		d.w.warn(d.idx, "an index entry without a <loc> was skipped")
		return nil
	}
	for i, loc := range e.locs {
		if e.undecoded[i] {
			d.w.warn(d.idx, fmt.Sprintf("skipped sitemap %q: %s", human.Clip(string(loc), 200), undecodedWhy))
			continue
		}
		s, note, err := childSource(d.src, loc)
		if err != nil {
			d.w.warn(d.idx, err.Error())
			continue
		}
		if note != "" {
			d.w.warn(d.idx, note)
		}
		d.children = append(d.children, s)
		d.w.res.Sitemaps[d.idx].Entries++
	}
	return nil
}

// line delivers one URL line of a text sitemap.
func (d *doc) line(loc []byte) error {
	u, ok := d.url(loc, false)
	if !ok {
		return nil
	}
	return d.add(u, time.Time{})
}

// skipLine warns of a line of a text sitemap that is not an http(s) URL; nil stands for one
// readText did not keep, whose warning is only counted.
func (d *doc) skipLine(line []byte) {
	what := "a line"
	if line != nil {
		what = "line " + strconv.Quote(human.Clip(string(line), textQuote))
	}
	d.w.warn(d.idx, "skipped "+what+": a text sitemap lists one absolute http(s) URL a line")
}

// pages delivers the pages an entry of a urlset or a feed names: one for each of its URLs, each
// with the entry's lastmod.
func (d *doc) pages(e *entry) error {
	if len(e.locs) == 0 {
		d.w.warn(d.idx, "an entry without a URL was skipped")
		return nil
	}
	var lastmod time.Time
	dated := false
	for i, loc := range e.locs {
		u, ok := d.url(loc, e.undecoded[i])
		if !ok {
			continue
		}
		if !dated {
			lastmod, dated = d.lastmod(u, e), true
		}
		if err := d.add(u, lastmod); err != nil {
			return err
		}
	}
	return nil
}

// url checks one URL value of an entry, warning about what was skipped or changed.
func (d *doc) url(loc []byte, undecoded bool) ([]byte, bool) {
	if undecoded {
		d.w.warn(d.idx, fmt.Sprintf("skipped %q: %s", human.Clip(string(loc), 200), undecodedWhy))
		return nil, false
	}
	u, note, skip := pageURL(loc, d.base)
	if skip != "" {
		d.w.warn(d.idx, skip)
		return nil, false
	}
	if note != "" {
		d.w.warn(d.idx, note)
	}
	return u, true
}

// lastmod reads the date of an entry whose first URL is u; one that cannot be read is dropped
// with a warning.
func (d *doc) lastmod(u []byte, e *entry) time.Time {
	if len(e.lastmod) == 0 {
		return time.Time{}
	}
	if e.lastmodUndecoded {
		d.w.warn(d.idx, fmt.Sprintf("%s: lastmod %s is not a date (%s); the URL is kept without one", u, strconv.Quote(human.Clip(string(e.lastmod), 60)), undecodedWhy))
		return time.Time{}
	}
	lm, ok := parseLastmod(e.lastmod)
	if !ok {
		d.w.warn(d.idx, fmt.Sprintf("%s: lastmod %s is not a date; the URL is kept without one", u, strconv.Quote(human.Clip(string(e.lastmod), 60))))
	}
	return lm
}

// add queues one page URL for delivery, once per read.
func (d *doc) add(u []byte, lastmod time.Time) error {
	if d.w.pending.add(u, lastmod) {
		return d.w.flush(d.idx)
	}
	return nil
}
