package runner

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// Baseline is what a site's sitemaps listed before — the live site's sitemap before a deploy
// (sitepush run --baseline): each page by hash. A run given one takes every URL it lists with
// the same or a later lastmod as delivered, so that it sends what is new or changed since, and
// announces through IndexNow, as removed, what it lists and the sitemaps no longer do.
//
// It is held as a run holds a sitemap: in memory, 16 bytes a page (its hash and lastmod, sorted
// by hash); the URLs go to a temporary file, read again only for the pages that left — a
// baseline of millions of URLs would otherwise take gigabytes. Close removes the file. It is
// safe for concurrent use once read.
type Baseline struct {
	pages []basePage // sorted by hash, one a hash: the first entry read of each URL
	urls  *spill     // each entry's hash and URL, as read
	size  int64      // the bytes written to urls
	first string     // the first URL read
}

// basePage is what a Baseline holds in memory of a page.
type basePage struct {
	hash    int64
	lastmod int64 // stamp
}

// ReadBaseline reads the sitemaps of targets (URLs or files, an index and its children) with r
// into a Baseline. A baseline read only in part would take what it missed for new: every
// sitemap must be read whole. A URL given twice counts once, as first given: r may deliver
// repeats (sitemap.Options.Repeats), sparing its own set of every URL.
func ReadBaseline(ctx context.Context, r *sitemap.Reader, targets []string) (*Baseline, error) {
	urls, err := newSpill("the baseline's URLs")
	if err != nil {
		return nil, err
	}
	b := &Baseline{urls: urls}
	w := bufio.NewWriterSize(urls.f, 64<<10)
	var rec []byte
	res, err := r.Read(ctx, targets, func(e sitemap.Entry) error {
		u := []byte(e.URL)
		u = canonical(u, authorityOf(u))
		h := URLHash(u)
		if b.first == "" {
			b.first = string(u)
		}
		b.pages = append(b.pages, basePage{hash: h, lastmod: stamp(e.Lastmod)})
		rec = binary.LittleEndian.AppendUint64(rec[:0], uint64(h))
		rec = binary.AppendUvarint(rec, uint64(len(u)))
		n, err := w.Write(append(rec, u...))
		b.size += int64(n)
		if err != nil {
			return fmt.Errorf("writing the baseline's URLs to a temporary file: %w", err)
		}
		return nil
	})
	if err == nil {
		if err = w.Flush(); err != nil {
			err = fmt.Errorf("writing the baseline's URLs to a temporary file: %w", err)
		}
	}
	if err == nil {
		if failed := res.Failed(); len(failed) > 0 {
			err = fmt.Errorf("sitemap %s could not be read: %v; a comparison with part of it would take the URLs it lists for new or removed",
				failed[0].URL, failed[0].Err)
		}
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	slices.SortStableFunc(b.pages, func(x, y basePage) int { return cmp.Compare(x.hash, y.hash) })
	b.pages = slices.CompactFunc(b.pages, func(x, y basePage) bool { return x.hash == y.hash })
	return b, nil
}

// Len returns how many pages the baseline lists.
func (b *Baseline) Len() int { return len(b.pages) }

// Close removes the baseline's temporary file; a nil Baseline has none.
func (b *Baseline) Close() error {
	if b == nil || b.urls == nil {
		return nil
	}
	err := b.urls.Close()
	b.urls = nil
	return err
}

// find returns the index of the page of hash, and whether the baseline lists it.
func (b *Baseline) find(hash int64) (int, bool) {
	return slices.BinarySearchFunc(b.pages, hash, func(p basePage, h int64) int { return cmp.Compare(p.hash, h) })
}

// eachURL calls fn with the hash and URL of every entry, in the order read — a URL given twice,
// twice. url is valid only during the call.
func (b *Baseline) eachURL(fn func(hash int64, url []byte) error) error {
	r := b.urls.section(0, b.size, 64<<10)
	var head [8]byte
	var u []byte
	for {
		if _, err := io.ReadFull(r, head[:]); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading the baseline's URLs back from a temporary file: %w", err)
		}
		n, err := binary.ReadUvarint(r)
		if err == nil {
			u = slices.Grow(u[:0], int(n))[:n]
			_, err = io.ReadFull(r, u)
		}
		if err != nil {
			return fmt.Errorf("reading the baseline's URLs back from a temporary file: %w", err)
		}
		if err := fn(int64(binary.LittleEndian.Uint64(head[:])), u); err != nil {
			return err
		}
	}
}

// covers reports whether the baseline lists the URL of hash with the same or a later lastmod: it
// was there before the deploy and did not change since. A URL without a lastmod is covered by
// being listed; one with a lastmod, only by an entry with one.
func (b *Baseline) covers(hash int64, lastmod time.Time) bool {
	i, ok := b.find(hash)
	return ok && b.pages[i].covers(stamp(lastmod))
}

// covers reports whether the baseline's page covers the same page with lastmod (a stamp).
func (p basePage) covers(lastmod int64) bool {
	return lastmod == noLastmod || p.lastmod != noLastmod && p.lastmod >= lastmod
}

// baseline takes out of channel ch's queue the URLs the run's baseline covers, unless their last
// attempt failed or they are removal notices, and records them as known, never sent
// (model.UnsentBaseline): they are not sent, and a later run sends them only when they change.
func (c *collector) baseline(ctx context.Context, ch int, rep *recorder) error {
	q, name := c.due[ch], c.channels[ch]
	if c.base == nil || q.Len() == 0 {
		return nil
	}
	old := q.Split(func(m channel.Meta) bool {
		_, notice := rep.removals.status[m.Hash]
		return m.Retry || notice || !c.base.covers(m.Hash, m.Lastmod)
	})
	for from := 0; from < old.Len(); from += lookUpBatch {
		if err := rep.Finished(channel.Outcome{Channel: name, URLs: old.Refs(from, from+lookUpBatch), Unsent: model.UnsentBaseline}); err != nil {
			return err
		}
	}
	if old.Len() > 0 {
		rep.Noted(name, fmt.Sprintf("%s unchanged since the baseline, not sent (%s)", human.Count(old.Len(), "URL"), rep.later.Baseline(old.Len())))
	}
	return ctx.Err()
}

// uncovered returns those of pages the run's baseline does not cover: the newest pages a
// channel's first run takes (the feed's items) are new or changed since the baseline.
func (c *collector) uncovered(pages []channel.Page) []channel.Page {
	if c.base == nil {
		return pages
	}
	return slices.DeleteFunc(pages, func(p channel.Page) bool { return c.base.covers(p.Hash, p.Lastmod) })
}

// baselineLeft marks, in a run given a baseline that read every sitemap whole, the URLs in the
// site's scope that the baseline lists and the sitemaps no longer do, as having left them: the
// run probes them next (probeLeft), and announces those that answer 404 or 410. They are added
// to the catalogue first: a removal notice is sent by URL. A dry run, which writes nothing,
// returns the first probesPerRun of them instead, for probeLeft to ask about as the run would.
func (r *Runner) baselineLeft(ctx context.Context, col *collector, res *sitemap.Result) ([]channel.Page, error) {
	if col.removalsOn() < 0 || col.base == nil || col.mode.chosen || len(res.Failed()) > 0 || ctx.Err() != nil {
		return nil, nil
	}
	var gone, batch []channel.Page
	var hashes []int64
	record := func() error {
		_, err := r.State.SyncCatalog(ctx, col.site.ID, col.now, batch, nil, false)
		batch = batch[:0]
		return err
	}
	err := col.leftOfBaseline(ctx, func(p channel.Page) error {
		if !col.mode.writes {
			if len(gone) < probesPerRun {
				gone = append(gone, p)
			}
			return nil
		}
		hashes = append(hashes, p.Hash)
		if batch = append(batch, p); len(batch) < lookUpBatch {
			return nil
		}
		return record()
	})
	if err == nil && len(batch) > 0 {
		err = record()
	}
	if err != nil || len(hashes) == 0 {
		return gone, err
	}
	slices.Sort(hashes)
	col.rec.AddNote(fmt.Sprintf("indexnow: %s the baseline lists left every sitemap: asked what became of them", human.Count(len(hashes), "URL")))
	return nil, r.State.MarkLeft(ctx, col.site.ID, hashes, col.now)
}

// leftOfBaseline calls fn with each URL in the site's scope that the run's baseline lists and the
// sitemaps no longer do, once, read back from the baseline's file in its order.
func (c *collector) leftOfBaseline(ctx context.Context, fn func(channel.Page) error) error {
	var listed []int64
	err := c.base.eachURL(func(h int64, u []byte) error {
		if inScope(c.site, c.host, u, authorityOf(u)) {
			listed = append(listed, h)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(listed)
	hashes, err := c.unlisted(ctx, slices.Compact(listed))
	if err != nil || len(hashes) == 0 {
		return err
	}
	taken := make([]bool, len(hashes))
	return c.base.eachURL(func(h int64, u []byte) error {
		i, ok := slices.BinarySearch(hashes, h)
		if !ok || taken[i] {
			return nil
		}
		taken[i] = true
		return fn(channel.Page{Hash: h, URL: string(u)})
	})
}

// What a page of a sitemap is to a baseline (Change.Kind).
const (
	ChangeNew     = "new"     // the baseline does not list it
	ChangeChanged = "changed" // the baseline lists it with an earlier lastmod, or none
	ChangeRemoved = "removed" // the baseline lists it, the sitemap does not
)

// Change is one URL a run given the baseline would send (new, changed) or announce as removed.
type Change struct {
	Kind    string
	URL     string
	Lastmod time.Time // the sitemap's; for a removed URL, the baseline's
	Before  time.Time // the baseline's lastmod of a changed URL
}

// DiffSite is the site a Diff told the changes of, and what it left out.
type DiffSite struct {
	// Host is the site's host (and port): that of now's first URL — what `sitepush urls` prints
	// first, what the GitHub Action takes the site's origin from — or, when now lists none, of
	// before's. Empty when neither lists a URL.
	Host string
	// Foreign counts the changes of URLs on other hosts, left out: a run of the site neither
	// sends nor announces them.
	Foreign int
}

// Diff calls fn with what a run of the site given the baseline before would do with the pages
// of now: the new URLs, the changed ones and the removed ones, in that order, each sorted by URL.
// The site is DiffSite.Host: changes of other hosts' URLs are left out, counted. It holds in
// memory a byte or two a page, and sorts in bounded memory, spilling to temporary files.
func Diff(before, now *Baseline, fn func(Change) error) (DiffSite, error) {
	var site DiffSite
	switch {
	case now.first != "":
		site.Host = hostOf([]byte(now.first))
	case before.first != "":
		site.Host = hostOf([]byte(before.first))
	}
	// Both sides are sorted by hash: one pass tells each page's change.
	kinds, removed := make([]uint8, len(now.pages)), make([]bool, len(before.pages))
	i := 0
	for j, p := range now.pages {
		for ; i < len(before.pages) && before.pages[i].hash < p.hash; i++ {
			removed[i] = true
		}
		switch {
		case i == len(before.pages) || before.pages[i].hash != p.hash:
			kinds[j] = kindNew
		case !before.pages[i].covers(p.lastmod):
			kinds[j] = kindChanged
		}
		if i < len(before.pages) && before.pages[i].hash == p.hash {
			i++
		}
	}
	for ; i < len(before.pages); i++ {
		removed[i] = true
	}
	sorters := map[uint8]*changeSorter{kindNew: {kind: ChangeNew}, kindChanged: {kind: ChangeChanged}, kindRemoved: {kind: ChangeRemoved}}
	defer func() {
		for _, s := range sorters {
			s.close()
		}
	}()
	// The URLs of the changes, read back from each side's file.
	take := func(kind uint8, u []byte, lastmod, before int64) error {
		if a := authorityOf(u); !strings.EqualFold(string(u[a.start:a.end]), site.Host) {
			site.Foreign++
			return nil
		}
		return sorters[kind].add(Change{URL: string(u), Lastmod: unstamp(lastmod), Before: unstamp(before)})
	}
	err := now.eachURL(func(h int64, u []byte) error {
		j, _ := now.find(h)
		kind := kinds[j]
		if kind == 0 {
			return nil
		}
		kinds[j] = 0 // once: a URL given twice is one change
		was := int64(noLastmod)
		if i, ok := before.find(h); ok {
			was = before.pages[i].lastmod
		}
		return take(kind, u, now.pages[j].lastmod, was)
	})
	if err == nil {
		err = before.eachURL(func(h int64, u []byte) error {
			i, _ := before.find(h)
			if !removed[i] {
				return nil
			}
			removed[i] = false
			return take(kindRemoved, u, before.pages[i].lastmod, noLastmod)
		})
	}
	for _, kind := range []uint8{kindNew, kindChanged, kindRemoved} {
		if err != nil {
			break
		}
		err = sorters[kind].each(fn)
	}
	return site, err
}

// The kinds of change Diff tells, in the order it gives them.
const (
	kindNew = 1 + iota
	kindChanged
	kindRemoved
)

// hostOf returns the host (and port) of a URL.
func hostOf(u []byte) string {
	a := authorityOf(u)
	return string(u[a.start:a.end])
}
