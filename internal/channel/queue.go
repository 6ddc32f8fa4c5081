package channel

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// URLs looks up the text of due URLs by their hashes: a queue holds only hashes, and reads the
// URLs back a batch at a time when a channel asks for them. The state implements it; URLMap is
// one in memory.
type URLs interface {
	// URLs returns the URL of each hash of site, "" for a hash it does not know.
	URLs(ctx context.Context, site string, hashes []int64) ([]string, error)
}

// URLMap is URLs in memory, by hash, whatever the site.
type URLMap map[int64]string

// URLs returns the URL of each hash.
func (m URLMap) URLs(_ context.Context, _ string, hashes []int64) ([]string, error) {
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = m[h]
	}
	return out, nil
}

// item is a due URL as a queue holds it: 16 bytes, so that a million due URLs take 16 MB.
type item struct {
	hash int64
	// mark is the lastmod in Unix milliseconds (0 for none) shifted left a bit, the low bit set
	// when the URL's last attempt failed.
	mark int64
}

func (it item) retry() bool { return it.mark&1 != 0 }

func (it item) lastmod() int64 { return it.mark >> 1 }

// Queue holds a channel's due URLs in order — those whose last attempt failed first, then the
// others in the order they were added (the order of the sitemaps) — and reads their text back a
// batch at a time. Build it with NewQueue and Add; once a channel has it, it is safe for
// concurrent use.
type Queue struct {
	site string
	urls URLs
	// failed and rest are the queue, failed first. They are two slices so that building a queue
	// of a million URLs never copies it.
	failed, rest []item
	// failures counts the attempts failed in a row of the URLs whose last attempt failed, by hash.
	failures map[int64]uint16
	// removals holds the hashes of the removal notices (Due.Removal): a few hundred a run at most.
	removals map[int64]bool
	newest   []Page
	complete bool
}

// NewQueue returns an empty queue of site's due URLs, whose text urls looks up.
func NewQueue(site string, urls URLs) *Queue {
	return &Queue{site: site, urls: urls}
}

// Read tells the queue what the run's read of the sitemaps found besides the due URLs: newest,
// the newest pages present, as many as the channel's Selection asked for, newest first; and
// complete, whether every sitemap was read whole.
func (q *Queue) Read(newest []Page, complete bool) {
	q.newest, q.complete = newest, complete
}

// Add appends a due URL; its text is looked up when a channel reads it, so d.URL is not kept.
func (q *Queue) Add(d Due) {
	it := item{hash: d.Hash}
	if d.Removal {
		if q.removals == nil {
			q.removals = map[int64]bool{}
		}
		q.removals[d.Hash] = true
	}
	if !d.Lastmod.IsZero() {
		it.mark = d.Lastmod.UnixMilli() << 1
	}
	if d.Retry {
		it.mark |= 1
		if d.Failures > 0 {
			if q.failures == nil {
				q.failures = map[int64]uint16{}
			}
			q.failures[d.Hash] = uint16(min(d.Failures, math.MaxUint16))
		}
		q.failed = append(q.failed, it)
		return
	}
	q.rest = append(q.rest, it)
}

// Meta is what a channel may order its queue by, and the runner split it by.
type Meta struct {
	Hash    int64
	Lastmod time.Time // zero when the sitemap gives none
	Retry   bool      // the last attempt failed
}

func (it item) meta() Meta {
	m := Meta{Hash: it.hash, Retry: it.retry()}
	if lm := it.lastmod(); lm != 0 {
		m.Lastmod = time.UnixMilli(lm).UTC()
	}
	return m
}

// one makes the queue a single slice, for the orders a channel imposes.
func (q *Queue) one() []item {
	if len(q.failed) > 0 {
		q.rest = append(q.failed, q.rest...)
		q.failed = nil
	}
	return q.rest
}

// SortByHash orders the URLs whose last attempt failed, and then the others, each by hash — the
// order in which the state reads and writes them fastest, neighbours in its indexes: sent in
// that order, a million URLs' outcomes are written a few pages at a time, instead of touching
// every page of the state at every answer — and drops a URL queued twice. It returns how many
// it dropped.
func (q *Queue) SortByHash() int {
	byHash := func(a, b item) int { return cmp.Compare(a.hash, b.hash) }
	sameHash := func(a, b item) bool { return a.hash == b.hash }
	n := q.Len()
	slices.SortFunc(q.failed, byHash)
	slices.SortFunc(q.rest, byHash)
	q.failed, q.rest = slices.CompactFunc(q.failed, sameHash), slices.CompactFunc(q.rest, sameHash)
	return n - q.Len()
}

// Shuffle puts the queue in a random order.
func (q *Queue) Shuffle(rnd *rand.Rand) {
	items := q.one()
	rnd.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
}

// SortStable orders the queue by cmp, keeping the present order of URLs cmp finds equal: after a
// Shuffle, those come in random order.
func (q *Queue) SortStable(cmp func(a, b Meta) int) {
	slices.SortStableFunc(q.one(), func(a, b item) int { return cmp(a.meta(), b.meta()) })
}

// Newest returns the newest pages present in the sitemaps, due or not, newest first: as many as
// the channel's Selection asked for.
func (q *Queue) Newest() []Page { return q.newest }

// Complete reports whether the run read every sitemap whole: when it did not, a URL missing
// from the queue may only be missing from what was read.
func (q *Queue) Complete() bool { return q.complete }

// at returns the i-th due URL.
func (q *Queue) at(i int) item {
	if i < len(q.failed) {
		return q.failed[i]
	}
	return q.rest[i-len(q.failed)]
}

// Len is how many URLs are due.
func (q *Queue) Len() int { return len(q.failed) + len(q.rest) }

// Refs returns the due URLs from index from up to (not including) to, without their text: what
// recording an outcome needs.
func (q *Queue) Refs(from, to int) []Due {
	to = min(to, q.Len())
	out := make([]Due, 0, max(0, to-from))
	for i := from; i < to; i++ {
		it := q.at(i)
		d := Due{Hash: it.hash, Retry: it.retry(), Removal: q.removals[it.hash]}
		if d.Retry {
			d.Failures = int(q.failures[it.hash])
		}
		if lm := it.lastmod(); lm != 0 {
			d.Lastmod = time.UnixMilli(lm).UTC()
		}
		out = append(out, d)
	}
	return out
}

// Slice returns the due URLs from index from up to (not including) to.
func (q *Queue) Slice(ctx context.Context, from, to int) ([]Due, error) {
	out := q.Refs(from, to)
	hashes := make([]int64, len(out))
	for i, d := range out {
		hashes[i] = d.Hash
	}
	urls, err := q.urls.URLs(ctx, q.site, hashes)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if urls[i] == "" {
			return nil, fmt.Errorf("site %q: the state lost the URL of a due entry (hash %d)", q.site, out[i].Hash)
		}
		out[i].URL = urls[i]
	}
	return out, nil
}

// Split takes out of the queue the URLs keep refuses, and returns them as a queue of their own,
// in the same order.
func (q *Queue) Split(keep func(Meta) bool) *Queue {
	out := &Queue{site: q.site, urls: q.urls, failures: q.failures, removals: q.removals}
	q.failed, out.failed = split(q.failed, keep)
	q.rest, out.rest = split(q.rest, keep)
	return out
}

// split sorts items into those keep keeps, in place, and the others.
func split(items []item, keep func(Meta) bool) (kept, refused []item) {
	kept = items[:0]
	for _, it := range items {
		if keep(it.meta()) {
			kept = append(kept, it)
		} else {
			refused = append(refused, it)
		}
	}
	return kept, refused
}

// Drop takes the URLs of hashes out of the queue: those a channel will not send after all.
func (q *Queue) Drop(hashes map[int64]bool) {
	gone := func(it item) bool { return hashes[it.hash] }
	q.failed, q.rest = slices.DeleteFunc(q.failed, gone), slices.DeleteFunc(q.rest, gone)
}
