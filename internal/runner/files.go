package runner

import (
	"cmp"
	"context"
	"encoding/binary"
	"iter"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// maxFilePages bounds the pages of one sitemap held at once (the sitemaps.org limit is 50,000):
// the pages of a bigger one are synced in pieces, each looked up in the store, and the file is
// not remembered.
const maxFilePages = 100_000

// filePage is a page of the sitemap being read: its URL is in the file's arena.
type filePage struct {
	hash, lastmod int64 // lastmod in Unix ms, 0 for none
	off, n        int
}

func (p filePage) page(arena []byte) channel.Page {
	var u string
	if arena != nil {
		u = string(arena[p.off : p.off+p.n])
	}
	var lm time.Time
	if p.lastmod != 0 {
		lm = time.UnixMilli(p.lastmod).UTC()
	}
	return channel.Page{Hash: p.hash, URL: u, Lastmod: lm}
}

// file is the sitemap being read, as far as it was: its pages in scope, the hashes of the URLs
// the filter left out (out), and how many of each it counts.
type file struct {
	name           string
	pages          []filePage
	arena          []byte
	out            []filePage
	urls, filtered int
	// whole is cleared when the pages were too many to hold (maxFilePages).
	whole bool
}

func (f *file) add(u []byte, lastmod time.Time) {
	var ms int64
	if !lastmod.IsZero() {
		// Lastmods are stored to the millisecond: finer ones would never compare equal again.
		ms = lastmod.UnixMilli()
	}
	f.pages = append(f.pages, filePage{hash: URLHash(u), lastmod: ms, off: len(f.arena), n: len(u)})
	f.arena = append(f.arena, u...)
	f.urls++
}

func (f *file) reset(name string) {
	*f = file{name: name, pages: f.pages[:0], arena: f.arena[:0], out: f.out[:0], whole: true}
}

// done is told by the reader that the read of a sitemap ended.
func (c *collector) done(ctx context.Context, sm sitemap.Sitemap) {
	now := time.Now()
	c.lastTook, c.lastDone = now.Sub(c.lastDone), now
	if sm.Kind == sitemap.KindIndex {
		return
	}
	if c.file.name != sm.URL {
		c.endFile(ctx, nil)
		c.file.reset(sm.URL)
	}
	if c.memo.carried(sm) { // its pages were taken before the read
		c.file.reset("")
		return
	}
	if memo, ok := c.memo.unchanged(sm); ok {
		if c.file.urls+c.file.filtered == 0 { // not read again: counted as the memo counted it
			c.rec.TotalURLs += memo.URLs
			c.rec.Filtered += memo.Filtered
		} else {
			c.tellApart(c.file.pages) // read again, the same bytes: its pages are taken, and settled
			c.tellApartOut()
		}
		c.file.reset("")
		return
	}
	c.endFile(ctx, &sm)
}

// endFile takes the pages of the file read so far through the steps of a sitemap (doc.go): tells
// them apart; when sm tells that the file was read whole, merges them, in hash order, against
// those its memo remembers — a page as remembered is no news, and due only where an outstanding
// delivery makes it so — and looks the others up in the state, which chooses what is due of them.
// What was read whole is remembered for the run's end.
func (c *collector) endFile(ctx context.Context, sm *sitemap.Sitemap) {
	f := &c.file
	defer f.reset("")
	if c.syncErr != nil || len(f.pages) == 0 && sm == nil {
		return
	}
	c.tellApartOut()
	listed, first := c.tellApart(f.pages)
	var old []byte
	if f.whole {
		old, c.syncErr = c.memo.pages(ctx, f.name)
	}
	if c.syncErr != nil {
		return
	}
	changed := first // every page, when none is remembered
	if len(old) > 0 {
		changed = c.merge(first, old)
	}
	c.lookUp(ctx, changed, f.arena)
	if sm != nil && sm.Err == nil && f.whole {
		f.pages = listed
		c.memo.read(sm, f)
	}
}

// merge walks pages and old, both sorted by hash: a page as old has it is taken as remembered
// (asRemembered), and the others are returned.
func (c *collector) merge(pages []filePage, old []byte) []filePage {
	var changed []filePage
	j := 0
	for _, p := range pages {
		for j < len(old) && pageHash(old, j) < p.hash {
			j += pageBytes
		}
		if j < len(old) && pageHash(old, j) == p.hash && pageLastmod(old, j) == p.lastmod {
			c.asRemembered(p)
			continue
		}
		changed = append(changed, p)
	}
	return changed
}

// tellApart sorts pages of the file being read by hash and returns them once each (listed: the
// file's own), and those of them no earlier file or piece of the run listed (first, which the
// run takes): a URL listed again — further on, by another sitemap, by an attempt at this one that
// failed before, or spelt with a host in capitals — is the page first listed, counted once. The
// reader delivers repeats (sitemap.Options.Repeats): this sorted set costs 8 bytes a page where
// the reader's costs 8 to 16. A file's memo holds all it lists, so that a page it shares with
// another stays remembered by it when the other drops the page.
func (c *collector) tellApart(pages []filePage) (listed, first []filePage) {
	listed, first = dedupe(&c.seen, pages)
	c.rec.TotalURLs -= len(pages) - len(first)
	c.file.urls -= len(pages) - len(first)
	return listed, first
}

// tellApartOut counts the URLs the filter left out of the file being read once each, in the
// whole run, as tellApart counts pages.
func (c *collector) tellApartOut() {
	f := &c.file
	_, first := dedupe(&c.seenOut, f.out)
	c.rec.Filtered -= len(f.out) - len(first)
	f.filtered -= len(f.out) - len(first)
	f.out = f.out[:0]
}

// dedupe sorts pages by hash, the first listed first, and returns one of each (listed, in pages'
// array) and those of them s had not seen (first), which s now has.
func dedupe(s *seen, pages []filePage) (listed, first []filePage) {
	slices.SortFunc(pages, func(a, b filePage) int { return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.off, b.off)) })
	listed = slices.CompactFunc(pages, func(a, b filePage) bool { return a.hash == b.hash })
	return listed, s.add(listed)
}

// asRemembered takes a page that is as the file's memo remembers it: known and settled on every
// channel of the run, unless an outstanding delivery makes it due.
func (c *collector) asRemembered(p filePage) {
	for ch, name := range c.channels {
		c.known[ch] = true
		c.rec.Channels[name].Skipped++
	}
	c.queueOutstanding(p)
}

// queueOutstanding queues a page taken as settled on the channels where an outstanding delivery
// makes it due.
func (c *collector) queueOutstanding(p filePage) {
	for _, pd := range c.memo.outstandingOf(p.hash) {
		c.rec.Channels[pd.Channel].Skipped--
		ch := slices.Index(c.channels, pd.Channel)
		if d, ok := c.choose(ch, p.page(nil), pd.State); ok {
			c.due[ch].Add(d)
		}
	}
}

// endRead ends the read: the last file, then the sitemaps that did not change: their pages are
// settled, but for those an outstanding delivery makes due.
func (c *collector) endRead(ctx context.Context) error {
	c.endFile(ctx, nil)
	if c.syncErr != nil {
		return c.syncErr
	}
	for _, m := range c.memo.kept {
		for ch, name := range c.channels {
			c.known[ch] = c.known[ch] || m.URLs > 0
			c.rec.Channels[name].Skipped += m.URLs
		}
		if len(c.memo.outstanding) == 0 {
			continue
		}
		old, err := c.memo.pages(ctx, m.Sitemap)
		if err != nil {
			return err
		}
		for p := range pagesOf(old) {
			c.queueOutstanding(p)
		}
	}
	return c.fillURLs(ctx)
}

// fillURLs finds, in a dry run, the text of the due URLs that no sitemap read gave.
func (c *collector) fillURLs(ctx context.Context) error {
	if c.urls == nil {
		return nil
	}
	var hashes []int64
	for _, q := range c.due {
		for _, d := range q.Refs(0, q.Len()) {
			if _, ok := c.urls[d.Hash]; !ok {
				hashes = append(hashes, d.Hash)
			}
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	urls, err := c.state.URLs(ctx, c.site.ID, hashes)
	for i, u := range urls {
		c.urls[hashes[i]] = u
	}
	return err
}

func pageHash(b []byte, at int) int64 { return int64(binary.LittleEndian.Uint64(b[at:])) }

// pagesOf yields the pages of a memo's bytes (model.SitemapMemo.Pages), whole pages only.
func pagesOf(b []byte) iter.Seq[filePage] {
	return func(yield func(filePage) bool) {
		for at := 0; at+pageBytes <= len(b); at += pageBytes {
			if !yield(filePage{hash: pageHash(b, at), lastmod: pageLastmod(b, at)}) {
				return
			}
		}
	}
}

func pageLastmod(b []byte, at int) int64 { return int64(binary.LittleEndian.Uint64(b[at+8:])) }
