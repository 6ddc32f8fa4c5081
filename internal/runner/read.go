package runner

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// read is a run's read: the chosen URLs, or the sitemaps — first those of a read over several
// runs that earlier runs read whole (carryOn), then the others — each page carried through the
// steps of doc.go as the reader delivers it.
func (r *Runner) read(run contexts, site *config.Site, opt Options, col *collector, query model.PendingQuery, rep *recorder) (*sitemap.Result, error) {
	ctx, budget := run.ctx, run.budget
	if err := col.chooseLookUp(ctx); err != nil {
		return nil, err
	}
	if col.mode.chosen {
		return col.takeChosen(ctx, opt.URLs)
	}
	col.began = time.Now()
	if err := col.memo.load(ctx, query); err != nil {
		return nil, err
	}
	if err := r.carryOn(run, col, opt.Channels, rep); err != nil {
		return nil, err
	}
	col.lastDone = time.Now()
	return r.reader(ctx, site, col).Read(budget, site.Sitemaps, func(e sitemap.Entry) error { return col.add(ctx, e) })
}

// add takes one page as the reader delivers it, into the file being read.
func (c *collector) add(ctx context.Context, e sitemap.Entry) error {
	if c.doneErr != nil {
		return c.doneErr
	}
	if e.Sitemap != c.file.name {
		if err := c.endFile(ctx, nil); err != nil {
			return err
		}
		c.file.name = e.Sitemap
	}
	a := authorityOf(e.URL)
	if !inScope(c.site, c.host, e.URL, a) {
		c.rec.Filtered++
		c.file.filtered++
		c.file.out = append(c.file.out, filePage{hash: URLHash(canonical(e.URL, a))})
		if len(c.file.out) >= maxFilePages {
			c.tellApartOut()
		}
		return nil
	}
	c.rec.TotalURLs++
	c.file.add(canonical(e.URL, a), e.Lastmod)
	if len(c.file.pages) >= maxFilePages {
		return c.takePiece(ctx)
	}
	return nil
}

// takePiece takes the pages of a file read so far, too many to hold with the rest
// (maxFilePages), through the steps endFile takes a file's pages through — told apart, merged
// with the file's memo, the others looked up — and keeps of them only what the file's memo is
// made of, 16 bytes a page: a big file is remembered as any other, and an unchanged one read again
// looks no page up.
func (c *collector) takePiece(ctx context.Context) error {
	f := &c.file
	listed, unseen := c.tellApart(f.pages)
	for _, p := range listed {
		f.cut = append(f.cut, pageRec{hash: p.hash, lastmod: p.lastmod})
	}
	changed, err := c.changedOf(ctx, unseen)
	if err != nil {
		return err
	}
	check, err := c.byContent(ctx, f)
	if err != nil {
		return err
	}
	// Taken as remembered, and counted skipped as asRemembered counts them: when the file turns
	// out unchanged, its memo counts them instead (done).
	f.remembered += len(unseen) - len(changed)
	if err := c.lookUp(ctx, changed, f.arena, check); err != nil {
		return err
	}
	f.pages, f.arena = f.pages[:0], f.arena[:0]
	return nil
}

// changedOf returns those of a file's pages, told apart, that its memo does not remember as they
// are, taking the others as remembered: all of them when it has no memo.
func (c *collector) changedOf(ctx context.Context, unseen []filePage) ([]filePage, error) {
	f := &c.file
	if !f.oldRead {
		old, err := c.memo.pages(ctx, f.name)
		if err != nil {
			return nil, err
		}
		f.old, f.oldRead = old, true
	}
	if len(f.old) == 0 {
		return unseen, nil
	}
	return c.merge(unseen, f.old), nil
}

// takeChosen takes chosen URLs instead of the sitemaps' pages: each once (tellApart), without a
// lastmod.
func (c *collector) takeChosen(ctx context.Context, urls []string) (*sitemap.Result, error) {
	for _, u := range urls {
		if err := c.add(ctx, sitemap.Entry{URL: []byte(u)}); err != nil {
			return nil, err
		}
	}
	return &sitemap.Result{}, c.endFile(ctx, nil)
}

// done is told by the reader that the read of a sitemap ended. The reader takes no error from
// it: one is kept in doneErr, for the next page the reader delivers (add) or the read's end
// (endRead) to return.
func (c *collector) done(ctx context.Context, sm sitemap.Sitemap) {
	now := time.Now()
	c.lastTook, c.lastDone = now.Sub(c.lastDone), now
	if sm.Kind == sitemap.KindIndex || c.doneErr != nil {
		return
	}
	if c.file.name != sm.URL {
		if c.doneErr = c.endFile(ctx, nil); c.doneErr != nil {
			return
		}
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
			// The memo counts every page skipped (endRead): those of the pieces taken before
			// (takePiece) were counted already.
			for _, name := range c.channels {
				c.rec.Channels[name].Skipped -= c.file.remembered
			}
		}
		c.file.reset("")
		return
	}
	c.doneErr = c.endFile(ctx, &sm)
}

// endFile takes the pages of the file read so far through the steps of a sitemap (doc.go): tells
// them apart; when sm tells that the file was read whole, merges them, in hash order, against
// those its memo remembers — a page as remembered is no news, and due only where an outstanding
// delivery makes it so — and looks the others up in the state, which chooses what is due of them.
// What was read whole is remembered for the run's end.
func (c *collector) endFile(ctx context.Context, sm *sitemap.Sitemap) error {
	f := &c.file
	defer f.reset("")
	if len(f.pages) == 0 && sm == nil {
		return nil
	}
	c.tellApartOut()
	listed, unseen := c.tellApart(f.pages)
	changed, err := c.changedOf(ctx, unseen)
	if err != nil {
		return err
	}
	check, err := c.byContent(ctx, f)
	if err != nil {
		return err
	}
	if err := c.lookUp(ctx, changed, f.arena, check); err != nil {
		return err
	}
	if sm != nil && sm.Err == nil {
		f.pages = listed
		c.memo.learn(sm, f)
	}
	return nil
}

// endRead ends the read: the last file, then the sitemaps that did not change: their pages are
// settled, but for those an outstanding delivery makes due.
func (c *collector) endRead(ctx context.Context) error {
	if c.doneErr != nil {
		return c.doneErr
	}
	if err := c.endFile(ctx, nil); err != nil {
		return err
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

// maxFilePages bounds the pages of one sitemap held at once (the sitemaps.org limit is 50,000):
// the pages of a bigger one are taken in pieces as they come (takePiece), of which only what its
// memo needs is held.
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
	return channel.Page{Hash: p.hash, URL: u, Lastmod: msTime(p.lastmod)}
}

// file is the sitemap being read, as far as it was: its pages in scope, the hashes of the URLs
// the filter left out (out), and how many of each it counts.
type file struct {
	name           string
	pages          []filePage
	arena          []byte
	out            []filePage
	urls, filtered int
	// cut holds the pages of the pieces taken before (takePiece), each piece told apart, for the
	// file's memo; remembered counts those of them its memo remembered as they are.
	cut        []pageRec
	remembered int
	// old is the pages its memo remembers, once read (oldRead); nil for none.
	old     []byte
	oldRead bool
	// check is set when the file's pages' changes are told by their content, once decided
	// (collector.byContent).
	check, decided bool
}

// pageRec is what a memo keeps of a page: its hash and its lastmod (Unix ms, 0 for none).
type pageRec struct{ hash, lastmod int64 }

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
	*f = file{name: name, pages: f.pages[:0], arena: f.arena[:0], out: f.out[:0], cut: f.cut[:0]}
}
