package sitemap

import (
	"hash/maphash"
	"time"
)

// batchSize is how many page entries wait between their parse and their delivery.
const batchSize = 256

// batch holds page entries between their parse and their delivery, so that the duplicate checks
// of a few hundred URLs are made together. Their probes into the URL set are then independent
// loads that the CPU overlaps, where checking each URL as it is parsed waits out one cache miss
// after another: ~100 ns each on this project's machines, the largest single cost of reading a
// big sitemap before batching, measured.
type batch struct {
	seed maphash.Seed
	hash bool // cleared when repeats are delivered: no URL is looked up

	hashes   []uint64
	ends     []int // end of each URL in urls
	urls     []byte
	lastmods []time.Time
}

// add queues an entry, copying its URL, and reports whether the batch is full.
func (b *batch) add(u []byte, lastmod time.Time) bool {
	var h uint64
	if b.hash {
		h = maphash.Bytes(b.seed, u)
	}
	b.hashes = append(b.hashes, h)
	b.urls = append(b.urls, u...)
	b.ends = append(b.ends, len(b.urls))
	b.lastmods = append(b.lastmods, lastmod)
	return len(b.hashes) >= batchSize
}

func (b *batch) reset() {
	b.hashes, b.ends, b.urls, b.lastmods = b.hashes[:0], b.ends[:0], b.urls[:0], b.lastmods[:0]
}

// flush delivers the queued entries of sitemap idx that were not delivered before (all of them
// with Options.Repeats), in order.
func (w *walk) flush(idx int) error {
	b := &w.pending
	defer b.reset()
	if b.hash {
		w.seenURL.reserve(len(b.hashes))
		w.seenURL.warm(b.hashes)
	}
	st := &w.res.Sitemaps[idx]
	// The caller's time is not the reader's: sitemap.timeout stops meanwhile.
	w.clock.pause()
	defer w.clock.resume()
	start := 0
	for i, h := range b.hashes {
		u := b.urls[start:b.ends[i]]
		start = b.ends[i]
		if b.hash && !w.seenURL.add(h) {
			continue
		}
		st.Entries++
		w.res.URLs++
		if st.Entries == urlsPerFile+1 {
			w.warn(idx, "has more than 50,000 URLs, the sitemaps.org limit for one file; search engines may ignore the rest")
		}
		if err := w.fn(Entry{URL: u, Lastmod: b.lastmods[i], Sitemap: st.URL}); err != nil {
			return stopError{err}
		}
	}
	return nil
}
