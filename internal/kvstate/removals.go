package kvstate

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
)

// leftSet is a site's URLs that left every sitemap and wait to be probed, in one value
// `left:{id}`: read only when the site's meta counts some, so that a site none left costs no
// operation; written before the memos, which no longer list them.
type leftSet struct {
	waiting []leftURL // the first to leave first
	dirty   bool
}

// leftURL is a URL waiting to be probed: its hash, and when it left (Unix ms).
type leftURL struct {
	Hash int64 `json:"h"`
	At   int64 `json:"at"`
}

// leftValue is the JSON of `left:{id}`.
type leftValue struct {
	Waiting []leftURL `json:"waiting"`
}

func leftKey(site string) string { return "left:" + site }

// leftOf returns a site's URLs waiting to be probed, read once; s.mu is held.
func (s *State) leftOf(ctx context.Context, st *site) (*leftSet, error) {
	if st.left != nil {
		return st.left, nil
	}
	m, err := s.metaOf(ctx, st)
	if err != nil {
		return nil, err
	}
	st.left = &leftSet{}
	if m.Left == 0 {
		return st.left, nil
	}
	var v leftValue
	_, dropped, err := s.getOrDropped(ctx, leftKey(st.id), &v, "the URLs that had left the sitemaps are not asked about, nor announced as removed")
	if err != nil {
		st.left = nil
		return nil, err
	}
	if dropped {
		// Nothing writes a value no URL leaves or is probed from: dropped for good — deleted, and
		// counted out of the meta — or every tick would read it and warn again.
		return st.left, s.leftChanged(ctx, st)
	}
	st.left.waiting = v.Waiting
	return st.left, nil
}

// leftChanged marks a site's URLs waiting to be probed as changed, and counts them in its meta;
// s.mu is held.
func (s *State) leftChanged(ctx context.Context, st *site) error {
	m, err := s.metaOf(ctx, st)
	if err != nil {
		return err
	}
	st.left.dirty = true
	m.Left, m.dirty = len(st.left.waiting), true
	return nil
}

// writeLeft writes a site's URLs waiting to be probed when a run changed them, and deletes the
// value when none is left; s.mu is held.
func (s *State) writeLeft(ctx context.Context, st *site) error {
	if st.left == nil || !st.left.dirty {
		return nil
	}
	var err error
	if len(st.left.waiting) == 0 {
		err = s.del(ctx, leftKey(st.id))
	} else {
		err = s.putJSON(ctx, leftKey(st.id), leftValue{Waiting: st.left.waiting}, 0)
	}
	if err != nil {
		return err
	}
	st.left.dirty = false
	return nil
}

// MarkLeft records that the URLs of hashes left every sitemap of site at at: each waits to be
// probed, after those that left before it. A URL that left before starts afresh. Each leaves the
// rotation of content checks, when the site has one: one that comes back on a sitemap checked by
// content joins it again, a suspect.
func (s *State) MarkLeft(ctx context.Context, site string, hashes []int64, at time.Time) (err error) {
	defer failed(&err, "recording the URLs that left the sitemaps", site)
	if len(hashes) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	l, err := s.leftOf(ctx, st)
	if err != nil {
		return err
	}
	again := make(map[int64]bool, len(hashes))
	for _, h := range hashes {
		again[h] = true
	}
	l.waiting = slices.DeleteFunc(l.waiting, func(u leftURL) bool { return again[u.Hash] })
	for _, h := range hashes {
		l.waiting = append(l.waiting, leftURL{Hash: h, At: at.UnixMilli()})
	}
	slices.SortStableFunc(l.waiting, func(a, b leftURL) int { return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Hash, b.Hash)) })
	l.waiting = slices.CompactFunc(l.waiting, func(a, b leftURL) bool { return a.Hash == b.Hash })
	if err := s.leftChanged(ctx, st); err != nil {
		return err
	}
	return s.leaveRotation(ctx, st, hashes)
}

// LeftToProbe returns at most limit of the URLs that left site's sitemaps and wait to be probed,
// those that left first first, with their URLs from the catalogue. One the catalogue does not
// know (its shard was deleted) waits no more.
func (s *State) LeftToProbe(ctx context.Context, site string, limit int) (_ []channel.Page, err error) {
	defer failed(&err, "reading the URLs that left the sitemaps", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	l, err := s.leftOf(ctx, st)
	if err != nil {
		return nil, err
	}
	var out []channel.Page
	unknown := map[int64]bool{}
	for _, u := range l.waiting {
		if len(out) == limit {
			break
		}
		sh, err := s.shardFor(ctx, st, u.Hash)
		if err != nil {
			return nil, err
		}
		if e := sh.entries[u.Hash]; e != nil && e.url != "" {
			out = append(out, channel.Page{Hash: u.Hash, URL: e.url})
		} else {
			unknown[u.Hash] = true
		}
	}
	if len(unknown) > 0 {
		l.waiting = slices.DeleteFunc(l.waiting, func(u leftURL) bool { return unknown[u.Hash] })
		return out, s.leftChanged(ctx, st)
	}
	return out, nil
}

// RecordProbe records that a URL that left site's sitemaps was probed: it waits no more. What it
// answered is not kept: the Worker tells no URL's story.
func (s *State) RecordProbe(ctx context.Context, site string, hash int64, _ int, _ time.Time) (err error) {
	defer failed(&err, "recording a probe of a URL that left the sitemaps", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	l, err := s.leftOf(ctx, st)
	if err != nil {
		return err
	}
	n := len(l.waiting)
	l.waiting = slices.DeleteFunc(l.waiting, func(u leftURL) bool { return u.Hash == hash })
	if len(l.waiting) == n {
		return nil
	}
	return s.leftChanged(ctx, st)
}
