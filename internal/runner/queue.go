package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// item is a due URL as the runner holds it while a run lasts: 24 bytes, so that a million due
// URLs take 24 MB; the URL itself is read back from the store a batch at a time.
type item struct {
	hash     int64
	lastmod  int64 // Unix milliseconds, 0 for none
	retry    bool
	failures uint16 // attempts failed in a row, when retry
}

// Queue holds a channel's due URLs in order — those whose last attempt failed first, then the
// order of the sitemaps — and reads them back from the store a batch at a time. It is safe for
// concurrent use.
type Queue struct {
	site   string
	state  State
	items  []item
	newest []Page
	// complete is set when every sitemap was read whole.
	complete bool
}

func newQueue(site string, state State, items []item) *Queue {
	ordered := make([]item, 0, len(items))
	for _, it := range items {
		if it.retry {
			ordered = append(ordered, it)
		}
	}
	for _, it := range items {
		if !it.retry {
			ordered = append(ordered, it)
		}
	}
	return &Queue{site: site, state: state, items: ordered}
}

// Meta is what a channel may order its queue by.
type Meta struct {
	Lastmod time.Time // zero when the sitemap gives none
	Retry   bool      // the last attempt failed
}

// Shuffle puts the queue in a random order.
func (q *Queue) Shuffle(rnd *rand.Rand) {
	rnd.Shuffle(len(q.items), func(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] })
}

// SortStable orders the queue by cmp, keeping the present order of URLs cmp finds equal: after a
// Shuffle, those come in random order.
func (q *Queue) SortStable(cmp func(a, b Meta) int) {
	slices.SortStableFunc(q.items, func(a, b item) int { return cmp(a.meta(), b.meta()) })
}

func (it item) meta() Meta {
	m := Meta{Retry: it.retry}
	if it.lastmod != 0 {
		m.Lastmod = time.UnixMilli(it.lastmod).UTC()
	}
	return m
}

// Newest returns the newest pages present in the sitemaps, due or not, newest first: as many as
// the channel's Policy asked for.
func (q *Queue) Newest() []Page { return q.newest }

// Complete reports whether the run read every sitemap whole: when it did not, a URL missing
// from the queue may only be missing from what was read.
func (q *Queue) Complete() bool { return q.complete }

// Len is how many URLs are due.
func (q *Queue) Len() int { return len(q.items) }

// Refs returns the due URLs from index from up to (not including) to, without their text: what
// recording an outcome needs.
func (q *Queue) Refs(from, to int) []Due {
	batch := q.items[from:min(to, len(q.items))]
	out := make([]Due, len(batch))
	for i, it := range batch {
		out[i] = Due{Hash: it.hash, Retry: it.retry, Failures: int(it.failures)}
		if it.lastmod != 0 {
			out[i].Lastmod = time.UnixMilli(it.lastmod).UTC()
		}
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
	urls, err := q.state.URLs(ctx, q.site, hashes)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if urls[i] == "" {
			return nil, fmt.Errorf("site %q: the store lost the URL of a due entry (hash %d)", q.site, out[i].Hash)
		}
		out[i].URL = urls[i]
	}
	return out, nil
}
