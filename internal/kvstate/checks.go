package kvstate

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// The rotation of content checks (docs/runs.md, "What changed") is each entry's place: 0 for a
// page not in it, suspect for a page new, or whose lastmod moved, on a sitemap checked by
// content and not checked since, else the time (Unix ms) that keeps its place in line. Each
// shard's summary counts its pages in the rotation, and the site's meta says whether it has any
// (meta.Rotation): PagesToCheck reads only the shards that hold some, and nothing for a site
// that never checked content.

// suspect is the place in the rotation of a suspect: before every time.
const suspect int64 = -1

// pageChecks is what content checks know of a page: its place in the rotation, the fingerprint of
// its last check (0: never checked) and that answer's validators.
type pageChecks struct {
	place   int64
	content uint64
	valid   model.Validators
}

// place is the entry's place in the rotation; 0 when it is not in it.
func (e *entry) place() int64 {
	if e.checks == nil {
		return 0
	}
	return e.checks.place
}

// content is the fingerprint of the page's last check; 0 when it was never checked.
func (e *entry) content() uint64 {
	if e.checks == nil {
		return 0
	}
	return e.checks.content
}

// checked returns what content checks know of the page, to write to.
func (e *entry) checked() *pageChecks {
	if e.checks == nil {
		e.checks = &pageChecks{}
	}
	return e.checks
}

// rotate applies to e what the sync of page p changes in the rotation, and reports whether it
// changed anything: with Check, a page not in it joins it, and one whose lastmod moved (a page
// with no lastmod never moves) becomes a suspect; without, a page leaves it (its sitemap's
// lastmods are trusted now), keeping its content. For an entry new, or one whose lastmod p is
// yet to write.
func (e *entry) rotate(p channel.Page) bool {
	switch place := e.place(); {
	case p.Check && (place == 0 || place != suspect && !p.Lastmod.IsZero() && ms(p.Lastmod) != e.lastmod):
		e.checked().place = suspect
	case !p.Check && place != 0:
		e.checks.place = 0
	default:
		return false
	}
	return true
}

// noteRotation notes in site's meta that pages of it are in the rotation; s.mu is held.
func (s *State) noteRotation(ctx context.Context, st *site) error {
	m, err := s.metaOf(ctx, st)
	if err != nil || m.Rotation {
		return err
	}
	m.Rotation, m.dirty = true, true
	return nil
}

// RecordChecks keeps what content checks found, in memory, written when the run finishes. A
// check that read the page sets its content and validators and clears a suspect, the page going
// to the back of the line (its place the check's time) — unless it changed: a page in line keeps
// its place, so that a page seen to change is looked at sooner; and every record of the page
// with nothing recorded as sent takes its content (its first check is not a change). A page not
// in the rotation stays out. A failed check (Content 0) changes nothing; an unknown page is
// ignored.
func (s *State) RecordChecks(ctx context.Context, site string, checks []model.PageCheck) (err error) {
	defer failed(&err, "recording content checks", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	for _, c := range checks {
		if c.Content == 0 {
			continue
		}
		sh, err := s.shardFor(ctx, st, c.Hash)
		if err != nil {
			return err
		}
		if e := sh.entries[c.Hash]; e != nil {
			e.see(c)
			sh.dirty = true
		}
	}
	return s.makeRoom(ctx, st)
}

// see applies a check that read the page to its entry.
func (e *entry) see(c model.PageCheck) {
	k := e.checked()
	k.content, k.valid = c.Content, c.Validators
	if k.place != 0 && (!c.Changed || k.place == suspect) {
		k.place = max(c.At.UnixMilli(), 1)
	}
	for i := range e.del {
		if e.del[i].sent == 0 {
			e.del[i].sent = c.Content
		}
	}
}

// PagesToCheck returns at most limit of site's pages in the rotation of content checks, the
// suspects first, then in the order of their place in line (those checked longest ago first),
// with their URLs, content and validators. It reads the shards in memory, and of the others
// those whose summary says they hold pages in the rotation — the least place first, until those
// left cannot hold one of the limit first — or says nothing of it (written before it did). A
// site whose meta says it has no page in the rotation costs nothing. A URL that left the
// sitemaps left the rotation (MarkLeft).
func (s *State) PagesToCheck(ctx context.Context, site string, limit int) (_ []model.ToCheck, err error) {
	defer failed(&err, "reading the pages to check", site)
	if limit <= 0 {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	m, err := s.metaOf(ctx, st)
	if err != nil || !m.Rotation {
		return nil, err
	}
	unread, err := s.unreadInLine(ctx, st)
	if err != nil {
		return nil, err
	}
	line := inLine{limit: limit}
	for _, sh := range st.shards {
		if sh != nil {
			line.add(sh)
		}
	}
	for _, u := range unread {
		if line.full() && u.least > line.last() {
			break
		}
		sh, err := s.shardAt(ctx, st, u.n)
		if err != nil {
			return nil, err
		}
		// A summary that says nothing of the rotation is written again, once: it is read no more.
		sh.dirty = sh.dirty || !u.told
		line.add(sh)
	}
	if len(line.pages) == 0 && len(unread) == 0 {
		m.Rotation, m.dirty = false, true // none is left in it
	}
	return line.toCheck(), nil
}

// shardInLine is a shard not read that may hold pages in the rotation, and the least place
// among them its summary gives; told is false for a summary that says nothing of the rotation
// (least is then math.MinInt64: it is read first).
type shardInLine struct {
	n     int
	least int64
	told  bool
}

// unreadInLine returns the shards of site not in memory that may hold pages in the rotation,
// the least place first, from a listing of the site's shards: the one a run made
// (PendingDeliveries), else one of its own; s.mu is held.
func (s *State) unreadInLine(ctx context.Context, st *site) ([]shardInLine, error) {
	listed := st.listed
	if listed == nil {
		var err error
		if listed, err = s.listShards(ctx, st); err != nil {
			return nil, err
		}
	}
	var out []shardInLine
	for n, meta := range listed {
		if st.shards[n] != nil {
			continue
		}
		sum, told := parseSummary(meta)
		switch r := sum[rotationKey]; {
		case !told:
			out = append(out, shardInLine{n, math.MinInt64, false})
		case r[0] > 0:
			out = append(out, shardInLine{n, r[1], true})
		}
	}
	slices.SortFunc(out, func(a, b shardInLine) int { return cmp.Or(cmp.Compare(a.least, b.least), cmp.Compare(a.n, b.n)) })
	return out, nil
}

// inLine gathers the first limit pages in the rotation of the shards added.
type inLine struct {
	limit int
	pages []inLinePage
}

type inLinePage struct {
	hash int64
	e    *entry
}

// add adds the pages in the rotation of sh, and keeps the first limit.
func (l *inLine) add(sh *shard) {
	for h, e := range sh.entries {
		if e.place() != 0 {
			l.pages = append(l.pages, inLinePage{h, e})
		}
	}
	slices.SortFunc(l.pages, func(a, b inLinePage) int {
		return cmp.Or(cmp.Compare(a.e.checks.place, b.e.checks.place), cmp.Compare(a.hash, b.hash))
	})
	l.pages = l.pages[:min(len(l.pages), l.limit)]
}

func (l *inLine) full() bool { return len(l.pages) == l.limit }

// last is the place of the last page kept.
func (l *inLine) last() int64 { return l.pages[len(l.pages)-1].e.checks.place }

func (l *inLine) toCheck() []model.ToCheck {
	out := make([]model.ToCheck, len(l.pages))
	for i, p := range l.pages {
		k := p.e.checks
		out[i] = model.ToCheck{Hash: p.hash, URL: p.e.url, Lastmod: fromMS(p.e.lastmod), Suspect: k.place == suspect, Content: k.content, Validators: k.valid}
	}
	return out
}

// leaveRotation takes the URLs of hashes out of the rotation, when site has one: they left the
// sitemaps; s.mu is held.
func (s *State) leaveRotation(ctx context.Context, st *site, hashes []int64) error {
	m, err := s.metaOf(ctx, st)
	if err != nil || !m.Rotation {
		return err
	}
	for _, h := range hashes {
		sh, err := s.shardFor(ctx, st, h)
		if err != nil {
			return err
		}
		if e := sh.entries[h]; e != nil && e.place() != 0 {
			e.checks.place, sh.dirty = 0, true
		}
	}
	return s.makeRoom(ctx, st)
}
