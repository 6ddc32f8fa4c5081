package runner

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
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
	if sm.Kind == sitemap.KindIndex {
		return
	}
	if c.file.name != sm.URL {
		c.endFile(ctx, nil)
		c.file.reset(sm.URL)
	}
	if memo, ok := c.memo.unchanged(sm); ok {
		if c.file.urls+c.file.filtered == 0 { // not read again: counted as the memo counted it
			c.rec.TotalURLs += memo.URLs
			c.rec.Filtered += memo.Filtered
		} else {
			c.distinct(c.file.pages) // read again, the same bytes: its pages are taken, and settled
			c.distinctOut()
		}
		c.file.reset("")
		return
	}
	c.endFile(ctx, &sm)
}

// endFile syncs the pages of the file read so far: when sm tells that it was read whole, they
// are merged, in hash order, against those remembered of it, and only pages new or changed since
// are looked up in the store; the others are due only on a channel whose delivery state says so
// (pending). What is found is remembered for the run's end.
func (c *collector) endFile(ctx context.Context, sm *sitemap.Sitemap) {
	f := &c.file
	defer f.reset("")
	if c.syncErr != nil || len(f.pages) == 0 && sm == nil {
		return
	}
	c.distinctOut()
	own, fresh := c.distinct(f.pages)
	var old []byte
	if f.whole {
		old, c.syncErr = c.memo.pages(ctx, f.name)
	}
	if c.syncErr != nil {
		return
	}
	changed := fresh // every page, when none is remembered
	if len(old) > 0 {
		changed = c.merge(fresh, old)
	}
	c.sync(ctx, changed, f.arena)
	if sm != nil && sm.Err == nil && f.whole {
		f.pages = own
		c.memo.read(sm, f)
	}
}

// merge walks pages and old, both sorted by hash: a page as old has it is taken as known (same),
// and the others are returned.
func (c *collector) merge(pages []filePage, old []byte) []filePage {
	var changed []filePage
	j := 0
	for _, p := range pages {
		for j < len(old) && pageHash(old, j) < p.hash {
			j += model.PageBytes
		}
		if j < len(old) && pageHash(old, j) == p.hash && pageLastmod(old, j) == p.lastmod {
			c.same(p)
			continue
		}
		changed = append(changed, p)
	}
	return changed
}

// distinct sorts pages of the file being read by hash and returns them once each (own), and
// those of them no earlier file or piece took (fresh, which the run takes): a URL listed again —
// further on, by another sitemap, by an attempt at this one that failed before, or spelt with a
// host in capitals — is the page first listed, counted once. The reader delivers repeats
// (sitemap.Options.Repeats): this sorted set costs 8 bytes a page where the reader's costs 8 to
// 16. A file's memo holds its own pages, so that a page it shares with another stays known by it
// when the other drops the page.
func (c *collector) distinct(pages []filePage) (own, fresh []filePage) {
	own, fresh = once(&c.seen, pages)
	c.rec.TotalURLs -= len(pages) - len(fresh)
	c.file.urls -= len(pages) - len(fresh)
	return own, fresh
}

// distinctOut counts the URLs the filter left out of the file being read once each, in the whole
// run, as distinct counts pages.
func (c *collector) distinctOut() {
	f := &c.file
	_, fresh := once(&c.seenOut, f.out)
	c.rec.Filtered -= len(f.out) - len(fresh)
	f.filtered -= len(f.out) - len(fresh)
	f.out = f.out[:0]
}

// once sorts pages by hash, the first listed first, and returns one of each (own, in pages'
// array) and those of them s did not take before (fresh), which s takes.
func once(s *seen, pages []filePage) (own, fresh []filePage) {
	slices.SortFunc(pages, func(a, b filePage) int { return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.off, b.off)) })
	own = slices.CompactFunc(pages, func(a, b filePage) bool { return a.hash == b.hash })
	return own, s.take(own)
}

// same takes a page that is as the file's memo has it: known and settled on every channel of the
// run, unless its delivery state makes it due.
func (c *collector) same(p filePage) {
	for ch, name := range c.channels {
		c.known[ch] = true
		c.rec.Channels[name].Skipped++
	}
	c.pending(p)
}

// pending queues a page taken as settled on the channels where its delivery state makes it due.
func (c *collector) pending(p filePage) {
	for _, pd := range c.memo.take(p.hash) {
		c.rec.Channels[pd.Channel].Skipped--
		ch := slices.Index(c.channels, pd.Channel)
		if d, ok := c.consider(ch, p.page(nil), pd.State); ok {
			c.due[ch].Add(d)
		}
	}
}

// endRead ends the read: the last file, then the sitemaps that did not change: their pages are
// settled, but for those a delivery state makes due.
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
		if len(c.memo.pending) == 0 {
			continue
		}
		old, err := c.memo.pages(ctx, m.Sitemap)
		if err != nil {
			return err
		}
		for j := 0; j < len(old); j += model.PageBytes {
			c.pending(filePage{hash: pageHash(old, j), lastmod: pageLastmod(old, j)})
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

func pageLastmod(b []byte, at int) int64 { return int64(binary.LittleEndian.Uint64(b[at+8:])) }

// memos is what a run knows of the site's sitemaps from earlier runs, and what it learns.
type memos struct {
	state State
	site  string
	// query is what the pending deliveries were asked for with, when they were.
	query *model.PendingQuery
	// on is set when the run uses and keeps memos: a run of the sitemaps, neither forced nor of
	// the failed URLs only, in which no channel asks for the newest pages (a feed's first run).
	on bool
	// scope is the run's: its filter and channels.
	scope  string
	known  map[string]model.SitemapMemo // those of the run's scope
	kept   []model.SitemapMemo          // of the sitemaps that did not change, with their validators now
	learnt []model.SitemapMemo          // of the sitemaps read; their pages in spill until save
	// spill holds the pages of the sitemaps read, one after the other, out of memory until the
	// run is settled (16 MB for a million pages); buf is where a sitemap's are made.
	spill *os.File
	end   int64     // of what spill holds
	spans []spilled // of each learnt memo's pages in spill
	buf   []byte
	// pending holds the delivery states that make a URL due whatever its sitemap says (failed,
	// resubmitAfter passed), by hash, until a page of the read takes them.
	pending map[int64][]model.Pending
}

// load reads the memos of the run's scope and, when there are any, the pending deliveries q
// asks for.
func (m *memos) load(ctx context.Context, q model.PendingQuery) error {
	if !m.on {
		return nil
	}
	all, err := m.state.SitemapMemos(ctx, m.site)
	if err != nil {
		return err
	}
	m.known = map[string]model.SitemapMemo{}
	for name, memo := range all {
		if covers(memo.Scope, m.scope) {
			m.known[name] = memo
		}
	}
	if len(m.known) == 0 {
		return nil
	}
	m.query = &q
	pending, err := m.state.PendingDeliveries(ctx, m.site, q)
	if err != nil {
		return err
	}
	m.pending = make(map[int64][]model.Pending, len(pending))
	for _, p := range pending {
		m.pending[p.Hash] = append(m.pending[p.Hash], p)
	}
	return nil
}

// Known is the sitemap.Cache of the run's reader.
func (m *memos) Known(name string) (sitemap.Validators, bool) {
	memo, ok := m.known[name]
	return sitemap.Validators{ETag: memo.ETag, LastModified: memo.LastModified, Size: memo.Size, ModTime: memo.ModTime, Hash: memo.Hash}, ok
}

// unchanged takes a sitemap the reader found unchanged, and returns its memo, with the validators
// of this read, if it has one.
func (m *memos) unchanged(sm sitemap.Sitemap) (model.SitemapMemo, bool) {
	memo, ok := m.known[sm.URL]
	if !ok || !sm.NotModified {
		return memo, false
	}
	memo.ETag, memo.LastModified, memo.Size, memo.ModTime = sm.Validators.ETag, sm.Validators.LastModified, sm.Validators.Size, sm.Validators.ModTime
	m.kept = append(m.kept, memo)
	return memo, true
}

// pages returns the pages remembered of a sitemap of the run's scope; nil for none.
func (m *memos) pages(ctx context.Context, name string) ([]byte, error) {
	if _, ok := m.known[name]; !ok {
		return nil, nil
	}
	return m.state.SitemapPages(ctx, m.site, name)
}

// take returns, and forgets, the pending delivery states of a URL.
func (m *memos) take(hash int64) []model.Pending {
	p := m.pending[hash]
	delete(m.pending, hash)
	return p
}

// lookedUp forgets the pending states of a URL looked up in the store: its state came with it.
func (m *memos) lookedUp(hash int64) {
	delete(m.pending, hash)
}

// read learns a sitemap read whole: its validators and its pages, sorted by hash, set aside in
// the spill file (kept in memory when no temporary file can be made).
func (m *memos) read(sm *sitemap.Sitemap, f *file) {
	if !m.on {
		return
	}
	m.buf = slices.Grow(m.buf[:0], len(f.pages)*model.PageBytes)[:len(f.pages)*model.PageBytes]
	for i, p := range f.pages {
		binary.LittleEndian.PutUint64(m.buf[i*model.PageBytes:], uint64(p.hash))
		binary.LittleEndian.PutUint64(m.buf[i*model.PageBytes+8:], uint64(p.lastmod))
	}
	v := sm.Validators
	memo := model.SitemapMemo{Sitemap: sm.URL, ETag: v.ETag, LastModified: v.LastModified, Size: v.Size, ModTime: v.ModTime,
		Hash: v.Hash, Scope: m.scope, URLs: f.urls, Filtered: f.filtered}
	at := m.setAside(m.buf)
	if at < 0 {
		memo.Pages = append([]byte{}, m.buf...)
	}
	m.learnt, m.spans = append(m.learnt, memo), append(m.spans, spilled{at, len(m.buf)})
}

// spilled is where a memo's pages are in the spill file: n bytes at at; at is -1 for pages kept in
// memory.
type spilled struct {
	at int64
	n  int
}

// setAside writes pages at the end of the spill file, made at the first call, and returns
// where; -1 when they could not be written.
func (m *memos) setAside(pages []byte) int64 {
	if m.spill == nil {
		f, err := os.CreateTemp("", "sitepush-pages-*")
		if err != nil {
			return -1
		}
		m.spill = f
	}
	if _, err := m.spill.WriteAt(pages, m.end); err != nil {
		return -1
	}
	at := m.end
	m.end += int64(len(pages))
	return at
}

// pagesBack reads the pages of the learnt memos back from the spill file, in the order set aside.
func (m *memos) pagesBack() error {
	if m.spill == nil {
		return nil
	}
	for i, sp := range m.spans {
		if sp.at < 0 {
			continue
		}
		m.learnt[i].Pages = make([]byte, sp.n)
		if _, err := m.spill.ReadAt(m.learnt[i].Pages, sp.at); err != nil {
			return fmt.Errorf("reading back the pages set aside in %s: %w", m.spill.Name(), err)
		}
	}
	return nil
}

// close removes the spill file.
func (m *memos) close() {
	if m.spill != nil {
		m.spill.Close()
		os.Remove(m.spill.Name())
	}
}

// save keeps what the run learnt, once what it found is settled: every sitemap read whole and
// every due URL answered (a failure is found again through its delivery state). The memos of
// sitemaps the run did not meet are forgotten.
func (m *memos) save(ctx context.Context, rec *model.Record, complete bool) error {
	if !m.on || !complete {
		return nil
	}
	for _, st := range rec.Channels {
		if st.Due != st.Submitted+st.Failed {
			return nil
		}
	}
	if err := m.pagesBack(); err != nil {
		return err
	}
	if err := m.state.SaveSitemapMemos(ctx, m.site, append(m.learnt, m.kept...)); err != nil || m.query == nil {
		return err
	}
	return m.state.SettleResubmits(ctx, m.site, *m.query)
}

// scopeOf names what the pages of a run are settled for: its filter, then its channels.
func scopeOf(host string, include, exclude, channels []string) string {
	sorted := slices.Sorted(slices.Values(channels))
	return fmt.Sprintf("host=%q include=%q exclude=%q channels=%s", host, include, exclude, strings.Join(sorted, ","))
}

// covers reports whether the pages of a memo of scope have are settled for a run of scope want:
// the same filter, and every channel of the run among the memo's.
func covers(have, want string) bool {
	hf, hc, _ := strings.Cut(have, " channels=")
	wf, wc, _ := strings.Cut(want, " channels=")
	if hf != wf {
		return false
	}
	got := strings.Split(hc, ",")
	for _, ch := range strings.Split(wc, ",") {
		if ch != "" && !slices.Contains(got, ch) {
			return false
		}
	}
	return true
}
