package kvstate

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// memoSet is what runs remember of a site's sitemaps, pages included, in one value
// `memos:{id}`: read once, written after the shards when a run changed it, so that a memo never
// speaks for pages whose deliveries were not written.
type memoSet struct {
	byName  map[string]model.SitemapMemo
	written time.Time
	dirty   bool
}

// memosSettle is how long memos are not used after they were written: KV's reads may lag its
// writes made elsewhere by up to a minute, and a run that took a memo as true of shards it read
// as they were before would never look at the pages the memo speaks for — where a run without
// one looks every page up, and at worst sends one again.
const memosSettle = 2 * time.Minute

// memosValue is the JSON of `memos:{id}`.
type memosValue struct {
	Written int64               `json:"written"` // Unix ms
	Memos   []model.SitemapMemo `json:"memos"`
}

func memosKey(site string) string { return "memos:" + site }

// memosOf returns a site's memos, read once; s.mu is held.
func (s *State) memosOf(ctx context.Context, st *site) (*memoSet, error) {
	if st.memos != nil {
		return st.memos, nil
	}
	// A cache that does not decode is no loss: without it the site's next run reads its sitemaps
	// whole and looks every page up.
	var v memosValue
	if _, err := s.getOrDrop(ctx, memosKey(st.id), &v, "the site's runs read its sitemaps whole until it is written again"); err != nil {
		return nil, err
	}
	st.memos = &memoSet{byName: make(map[string]model.SitemapMemo, len(v.Memos)), written: fromMS(v.Written)}
	for _, m := range v.Memos {
		st.memos.byName[m.Sitemap] = m
	}
	return st.memos, nil
}

// writeMemos writes a site's memos when a run changed them; s.mu is held.
func (s *State) writeMemos(ctx context.Context, st *site) error {
	if st.memos == nil || !st.memos.dirty {
		return nil
	}
	v := memosValue{Written: max(s.now().UnixMilli(), time.Now().UnixMilli()), Memos: make([]model.SitemapMemo, 0, len(st.memos.byName))}
	for _, m := range st.memos.byName {
		v.Memos = append(v.Memos, m)
	}
	if err := s.putJSON(ctx, memosKey(st.id), v, 0); err != nil {
		return err
	}
	st.memos.written, st.memos.dirty = fromMS(v.Written), false
	return nil
}

// SitemapMemos returns what runs remember of site's sitemaps, by sitemap, without their pages:
// no settled one while they were written less than memosSettle ago. An unfinished memo's pages
// are each looked up, whatever the memo says: it is returned at once, so that the next run reads
// on where the last one stopped. An unsettled one spares no page a look-up either: it is returned
// at once, so that what the sitemaps list is known.
func (s *State) SitemapMemos(ctx context.Context, site string) (_ map[string]model.SitemapMemo, err error) {
	defer failed(&err, "reading what is known of the sitemaps", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	set, err := s.memosOf(ctx, s.siteOf(site))
	if err != nil {
		return nil, err
	}
	settling := s.now().Sub(set.written) < memosSettle
	out := make(map[string]model.SitemapMemo, len(set.byName))
	for name, m := range set.byName {
		if settling && !m.Unfinished && !m.Unsettled {
			continue
		}
		m.Pages = nil
		out[name] = m
	}
	return out, nil
}

// SitemapPages returns the pages remembered of one sitemap; nil when none are.
func (s *State) SitemapPages(ctx context.Context, site, sitemap string) (_ []byte, err error) {
	defer failed(&err, "reading what is known of sitemap "+sitemap, site)
	s.mu.Lock()
	defer s.mu.Unlock()
	set, err := s.memosOf(ctx, s.siteOf(site))
	if err != nil {
		return nil, err
	}
	return set.byName[sitemap].Pages, nil
}

// SaveSitemapMemos replaces what is remembered of site's sitemaps with memos — a memo without
// Pages keeps the pages remembered before, the memos of other sitemaps are forgotten — written
// with what the run did, after its shards.
func (s *State) SaveSitemapMemos(ctx context.Context, site string, memos []model.SitemapMemo) (err error) {
	defer failed(&err, "remembering the sitemaps", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	set, err := s.memosOf(ctx, s.siteOf(site))
	if err != nil {
		return err
	}
	next := make(map[string]model.SitemapMemo, len(memos))
	for _, m := range memos {
		if m.Pages == nil {
			old, ok := set.byName[m.Sitemap]
			if !ok {
				continue // no pages to keep, as the SQL store's update finds no row
			}
			m.Pages = old.Pages
		}
		next[m.Sitemap] = m
	}
	if !sameMemos(set.byName, next) {
		set.byName, set.dirty = next, true
	}
	return nil
}

// sameMemos reports whether two sets of memos are equal, pages and all.
func sameMemos(a, b map[string]model.SitemapMemo) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		y, ok := b[name]
		if !ok || x.ETag != y.ETag || x.LastModified != y.LastModified || x.Size != y.Size || x.ModTime != y.ModTime ||
			x.Hash != y.Hash || x.Scope != y.Scope || x.URLs != y.URLs || x.Filtered != y.Filtered || x.Unfinished != y.Unfinished || x.Unsettled != y.Unsettled || x.Index != y.Index ||
			!bytes.Equal(x.Pages, y.Pages) {
			return false
		}
	}
	return true
}

// PendingDeliveries returns the site's URLs whose last attempt on one of q.Failed failed, those a
// channel of q.Resubmit accepted at or before q.Before(), and those a preflight held back on a
// channel of q.Recheck and checked at or before the time it gives. Each shard's metadata sums it
// up (summary), so that one list of the site's shards tells which may hold such a URL: only those
// are read. Nothing is written here; a summary found to lie, here or by a read of its shard later
// in the invocation, is written again with its shard (checkSummary).
func (s *State) PendingDeliveries(ctx context.Context, site string, q model.PendingQuery) (_ []model.Pending, err error) {
	defer failed(&err, "reading the failed deliveries", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	before := ms(q.Before())
	listed, err := s.listShards(ctx, st)
	if err != nil {
		return nil, err
	}
	if !q.DryRun {
		st.listed = listed
	}
	var out []model.Pending
	for n := range 1 << shardBits {
		sh := st.shards[n]
		if sh != nil {
			st.checkSummary(sh)
		} else {
			meta, ok := listed[n]
			if sum, _ := parseSummary(meta); !ok || sum.settled(q, before) {
				continue
			}
			if sh, err = s.shardAt(ctx, st, n); err != nil {
				return nil, err
			}
		}
		for h, e := range sh.entries {
			for _, d := range e.del {
				failed := d.outcome == outcomeFailed && slices.Contains(q.Failed, d.channel)
				if failed || d.resubmit(before) && slices.Contains(q.Resubmit, d.channel) || d.recheck(q.Recheck) {
					out = append(out, model.Pending{Hash: h, Channel: d.channel, State: stateOf(&d)})
				}
			}
		}
	}
	return out, nil
}

// resubmit reports whether a delivery makes its URL due again: accepted at or before the time
// before (0: never).
func (d *delivery) resubmit(before int64) bool {
	return before != 0 && d.accepted() && d.deliveredAt <= before
}

// recheck reports whether a delivery makes its URL due to be checked again: a preflight held it
// back at or before the time recheck gives for its channel.
func (d *delivery) recheck(recheck map[string]time.Time) bool {
	at, ok := recheck[d.channel]
	return ok && d.outcome == outcomeIneligible && d.lastAttempt <= at.UnixMilli()
}

// accepted reports whether the channel's last answer took the URL (or refused it for good): the
// deliveries resubmitAfter applies to.
func (d *delivery) accepted() bool { return d.outcome == outcomeOK || d.outcome == outcomeRejected }
