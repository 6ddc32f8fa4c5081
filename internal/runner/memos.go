package runner

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// memos is what a run knows of the site's sitemaps from earlier runs, and what it learns. A memo
// is settled — its pages were settled on every channel, so a page as it has it is no news —,
// unsettled — the sitemap was read whole by a read that reached its end, but not everything due
// was answered: its pages say which URLs the sitemaps list, and the sitemap is read again — or
// unfinished: the sitemap was read whole by a read of the site's sitemaps that a run's end cut
// short, and is not read again until the read reaches its end (docs/runs.md, "A read over several
// runs"); its pages are looked up.
type memos struct {
	state State
	site  string
	// query is what the outstanding deliveries were asked for with, when they were.
	query *model.PendingQuery
	// mode is the run's: whether it uses memos, and keeps what it reads.
	mode mode
	// scope is the run's: its filter and channels.
	scope string
	// settled, whole and unfinished are the memos of the run's scope (an unsettled or unfinished
	// one needs only its filter): settled, unsettled (read whole) and unfinished; inUse holds the
	// settled ones the run uses (on).
	settled, whole, unfinished, inUse map[string]model.SitemapMemo
	// met holds the unfinished memos whose sitemaps the read met: taken, not read again.
	met    map[string]bool
	kept   []model.SitemapMemo // of the sitemaps that did not change, with their validators now
	learnt []model.SitemapMemo // of the sitemaps read; their pages in spill until save
	// indexes are the memos of the indexes read whole with every sitemap below them.
	indexes []model.SitemapMemo
	// has names the sitemaps the run has a memo of, for the runs after: kept, learnt or met.
	has map[string]bool
	// spill holds the pages of the sitemaps read, one after the other, out of memory until the
	// run is settled (16 MB for a million pages); buf is where a sitemap's are made.
	spill *spill
	end   int64     // of what spill holds
	spans []spilled // of each learnt memo's pages in spill
	buf   []byte
	// outstanding holds the delivery states that make a URL due whatever its sitemap says (its
	// last attempt failed, resubmitAfter passed), by hash, until a page of the read takes them.
	outstanding map[int64][]model.Pending
	// warn, when set, is told of a memo dropped as damaged (usable).
	warn func(site, msg string)
	// before holds the hash of each sitemap's content as the runs before read it, of every
	// memo whatever its scope; changed names the sitemaps the run learnt whose content is new
	// or other than that, in the order read: what the run's followers are told (Follower).
	before  map[string]uint64
	changed []string
}

// load reads the memos of the run's scope and, when it uses settled ones, the outstanding
// deliveries q asks for: what a run of the sitemaps starts from.
func (m *memos) load(ctx context.Context, q model.PendingQuery) error {
	all, err := m.state.SitemapMemos(ctx, m.site)
	if err != nil {
		return err
	}
	m.before = make(map[string]uint64, len(all))
	for name, memo := range all {
		m.before[name] = memo.Hash
		switch {
		case memo.Unfinished && sameFilter(memo.Scope, m.scope):
			m.unfinished[name] = memo
		case memo.Unsettled && sameFilter(memo.Scope, m.scope):
			m.whole[name] = memo
		case !memo.Unfinished && !memo.Unsettled && covers(memo.Scope, m.scope):
			m.settled[name] = memo
		}
	}
	if !m.mode.useMemos || len(m.settled) == 0 {
		return nil
	}
	m.inUse, m.query = m.settled, &q
	outstanding, err := m.state.PendingDeliveries(ctx, m.site, q)
	if err != nil {
		return err
	}
	m.outstanding = make(map[int64][]model.Pending, len(outstanding))
	for _, p := range outstanding {
		m.outstanding[p.Hash] = append(m.outstanding[p.Hash], p)
	}
	return nil
}

// Known is the sitemap.Cache of the run's reader: a sitemap of an unfinished read is not asked
// for again; one of a settled memo is, with its validators.
func (m *memos) Known(name string) (sitemap.Validators, bool) {
	if memo, ok := m.unfinished[name]; ok {
		return validators(memo, true), true
	}
	memo, ok := m.inUse[name]
	return validators(memo, false), ok
}

func validators(memo model.SitemapMemo, current bool) sitemap.Validators {
	return sitemap.Validators{ETag: memo.ETag, LastModified: memo.LastModified, Size: memo.Size, ModTime: memo.ModTime, Hash: memo.Hash, Current: current}
}

// toTake returns the unfinished memos of sitemaps of pages, in the order of their names: what
// the run takes before it reads.
func (m *memos) toTake() []model.SitemapMemo {
	out := slices.Collect(func(yield func(model.SitemapMemo) bool) {
		for _, memo := range m.unfinished {
			if !memo.Index && !yield(memo) {
				return
			}
		}
	})
	slices.SortFunc(out, func(a, b model.SitemapMemo) int { return cmp.Compare(a.Sitemap, b.Sitemap) })
	return out
}

// carried reports whether the reader met a sitemap of the unfinished read, not asked for again:
// its pages were taken before the read.
func (m *memos) carried(sm sitemap.Sitemap) bool {
	if _, ok := m.unfinished[sm.URL]; !ok || !sm.NotModified {
		return false
	}
	m.met[sm.URL], m.has[sm.URL] = true, true
	return true
}

// unchanged takes a sitemap the reader found unchanged, and returns its memo, with the validators
// of this read, if it has one.
func (m *memos) unchanged(sm sitemap.Sitemap) (model.SitemapMemo, bool) {
	memo, ok := m.inUse[sm.URL]
	if !ok || !sm.NotModified {
		return memo, false
	}
	memo.ETag, memo.LastModified, memo.Size, memo.ModTime = sm.Validators.ETag, sm.Validators.LastModified, sm.Validators.Size, sm.Validators.ModTime
	m.kept, m.has[sm.URL] = append(m.kept, memo), true
	return memo, true
}

// readIndex learns an index the read read whole, with every sitemap below it remembered by the
// run (below): the runs after need not read it again while the read goes on.
func (m *memos) readIndex(index sitemap.Sitemap, below []sitemap.Sitemap) {
	if !m.mode.keepMemos || index.Err != nil || m.has[index.URL] {
		return
	}
	for _, sm := range below {
		if sm.Err != nil || !m.has[sm.URL] {
			return
		}
	}
	m.indexes = append(m.indexes, model.SitemapMemo{Sitemap: index.URL, Scope: m.scope, Index: true, Unfinished: true, Pages: []byte{}})
	m.has[index.URL] = true
}

// pages returns the pages of the settled memo of a sitemap the run uses; nil for none, and for
// pages that are not whole (usable): the sitemap's pages are then each looked up.
func (m *memos) pages(ctx context.Context, name string) ([]byte, error) {
	if _, ok := m.inUse[name]; !ok {
		return nil, nil
	}
	pages, err := m.state.SitemapPages(ctx, m.site, name)
	if err != nil || !m.usable(name, pages) {
		return nil, err
	}
	return pages, nil
}

// takeOutstanding returns, and forgets, the outstanding deliveries of a URL.
func (m *memos) takeOutstanding(hash int64) []model.Pending {
	p := m.outstanding[hash]
	delete(m.outstanding, hash)
	return p
}

// lookedUp forgets the outstanding deliveries of a URL looked up in the state: its delivery
// states came with it.
func (m *memos) lookedUp(hash int64) {
	delete(m.outstanding, hash)
}

// learn learns a sitemap read whole: its validators and its pages, sorted by hash — those of
// the pieces taken before (file.cut) with the last — set aside in the spill file (kept in memory
// when no temporary file can be made).
func (m *memos) learn(sm *sitemap.Sitemap, f *file) {
	if !m.mode.keepMemos {
		return
	}
	if len(f.cut) > 0 {
		for _, p := range f.pages {
			f.cut = append(f.cut, pageRec{hash: p.hash, lastmod: p.lastmod})
		}
		// Each piece was told apart; a URL listed in two keeps the first lastmod, as a piece keeps it.
		slices.SortStableFunc(f.cut, func(a, b pageRec) int { return cmp.Compare(a.hash, b.hash) })
		f.cut = slices.CompactFunc(f.cut, func(a, b pageRec) bool { return a.hash == b.hash })
		m.buf = slices.Grow(m.buf[:0], len(f.cut)*pageBytes)[:len(f.cut)*pageBytes]
		for i, p := range f.cut {
			putPage(m.buf[i*pageBytes:], p.hash, p.lastmod)
		}
	} else {
		m.buf = slices.Grow(m.buf[:0], len(f.pages)*pageBytes)[:len(f.pages)*pageBytes]
		for i, p := range f.pages {
			putPage(m.buf[i*pageBytes:], p.hash, p.lastmod)
		}
	}
	v := sm.Validators
	memo := model.SitemapMemo{Sitemap: sm.URL, ETag: v.ETag, LastModified: v.LastModified, Size: v.Size, ModTime: v.ModTime,
		Hash: v.Hash, Scope: m.scope, URLs: f.urls, Filtered: f.filtered}
	at := m.setAside(m.buf)
	if at < 0 {
		memo.Pages = append([]byte{}, m.buf...)
	}
	m.learnt, m.spans = append(m.learnt, memo), append(m.spans, spilled{at, len(m.buf)})
	m.has[sm.URL] = true
	if v.Hash == 0 || m.before[sm.URL] != v.Hash {
		m.changed = append(m.changed, sm.URL)
	}
}

// putPage writes a page of a memo's pages (pageBytes) at the start of b.
func putPage(b []byte, hash, lastmod int64) {
	binary.LittleEndian.PutUint64(b, uint64(hash))
	binary.LittleEndian.PutUint64(b[8:], uint64(lastmod))
}

// readWhole counts the sitemaps the run read whole, or found unchanged, and the indexes read
// whole with all below them: those of the unfinished read it took are not counted.
func (m *memos) readWhole() int { return len(m.learnt) + len(m.kept) + len(m.indexes) }

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
		sp, err := newSpill("a run's pages")
		if err != nil {
			return -1
		}
		m.spill = sp
	}
	if _, err := m.spill.f.WriteAt(pages, m.end); err != nil {
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
		if _, err := m.spill.f.ReadAt(m.learnt[i].Pages, sp.at); err != nil {
			return fmt.Errorf("reading back the pages set aside in a temporary file: %w", err)
		}
	}
	return nil
}

// close removes the spill file.
func (m *memos) close() {
	if m.spill != nil {
		m.spill.Close()
	}
}

// readOutcome is how a run's read of the sitemaps ended, for what it keeps of them (memos.save).
type readOutcome int

const (
	// readGoesOn: the run stopped before its end (its budget, a signal) with sitemaps not read
	// yet or due URLs not answered: the runs after take what it read and go on from there.
	readGoesOn readOutcome = iota
	// readSettled: every sitemap read whole and every due URL answered.
	readSettled
	// readWhole: every sitemap read whole, but not every due URL answered (a quota held some
	// back): what the sitemaps list is known, and the next run reads them again.
	readWhole
	// readPartial: the read reached its end without every sitemap read whole (one failed): the
	// next run reads the sitemaps again.
	readPartial
)

// whole reports whether the read read every sitemap whole: what they list now is known.
func (o readOutcome) whole() bool { return o == readSettled || o == readWhole }

// save keeps what the run learnt, as its read ended. A read that goes on remembers every sitemap
// read whole so far as unfinished, the others' memos as they were. A whole read — but one of the
// failed URLs only (mode.keepWhole) — remembers the sitemaps it met, at once, whatever the
// channels did: settled when every due URL was answered (a failure is found again through its
// delivery state), else unsettled — which URLs they list, not that these are no news — but for
// those that did not change, which stay settled; it forgets the others. A partial read forgets the
// unfinished read, and keeps the other memos as they were: the next run merges against them, so
// that URLs held back are found again.
func (m *memos) save(ctx context.Context, ended readOutcome) error {
	if !m.mode.keepMemos {
		return nil
	}
	var out []model.SitemapMemo
	switch {
	case ended == readGoesOn:
		if err := m.pagesBack(); err != nil {
			return err
		}
		read := map[string]bool{}
		for _, memo := range slices.Concat(m.learnt, m.kept, m.indexes) {
			memo.Unfinished, memo.Unsettled, memo.Scope = true, false, m.scope
			out, read[memo.Sitemap] = append(out, memo), true
		}
		for _, group := range []map[string]model.SitemapMemo{m.unfinished, m.settled, m.whole} {
			for name, memo := range group {
				if !read[name] {
					out, read[name] = append(out, memo), true
				}
			}
		}
	case ended.whole() && m.mode.keepWhole:
		if err := m.pagesBack(); err != nil {
			return err
		}
		unsettled := ended != readSettled
		for _, memo := range m.learnt {
			memo.Unsettled = unsettled
			out = append(out, memo)
		}
		out = append(out, m.kept...) // their pages were no news: nothing of them was due
		for name := range m.met {
			if memo := m.unfinished[name]; !memo.Index { // an index is read at every read
				memo.Unfinished, memo.Unsettled, memo.Scope = false, unsettled, m.scope
				out = append(out, memo)
			}
		}
	case len(m.unfinished) > 0:
		for _, group := range []map[string]model.SitemapMemo{m.settled, m.whole} {
			for _, memo := range group {
				out = append(out, memo)
			}
		}
	default:
		return nil
	}
	if err := m.state.SaveSitemapMemos(ctx, m.site, out); err != nil || ended != readSettled || m.query == nil {
		return err
	}
	return settleResubmits(ctx, m.state, m.site, *m.query)
}

// scopeOf names what the pages of a run of site are settled for: the sitemaps it starts from,
// its filter and how it tells what changed (changes.detect), then its channels. A site given
// other sitemaps starts afresh: a sitemap it no longer lists is never taken from memory; and a
// site whose changes are told otherwise looks every page up once, so that each joins the
// rotation of content checks, or leaves it (docs/runs.md, "What changed").
func scopeOf(site *config.Site, channels []string) string {
	sorted := slices.Sorted(slices.Values(channels))
	return fmt.Sprintf("sitemaps=%q host=%q include=%q exclude=%q changes=%s channels=%s", site.Sitemaps, site.Host(), site.Include, site.Exclude,
		site.Changes.Detect, strings.Join(sorted, ","))
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

// sameFilter reports whether two scopes have the same filter, whatever their channels: the pages
// an unfinished memo holds are those of the filter, each looked up for every channel of the run.
func sameFilter(have, want string) bool {
	hf, _, _ := strings.Cut(have, " channels=")
	wf, _, _ := strings.Cut(want, " channels=")
	return hf == wf
}
