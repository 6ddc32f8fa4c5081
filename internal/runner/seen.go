package runner

import (
	"cmp"
	"slices"
)

// seen holds the hash of every page a run took, to tell a page listed again — by another sitemap,
// further on in a big one, or by an attempt at a sitemap that failed before — from a new one. The
// hashes are kept in sorted runs, the last two merged while the one before is no more than twice
// the size of the last, so that each run is more than twice the next and there are at most log2 n
// of them: 8 bytes a page (a hash set takes 8 to 16, and half as much again as it grows), and
// O(n log n) work for n pages taken a sitemap at a time.
type seen struct {
	runs [][]int64
	at   []int // a cursor into each run, for add
}

// add returns those of pages, sorted by hash and distinct, not seen before, and adds them: pages
// itself when none was (most often), a copy otherwise; pages is left as it is.
func (s *seen) add(pages []filePage) []filePage {
	s.at = slices.Grow(s.at[:0], len(s.runs))[:len(s.runs)]
	clear(s.at)
	unseen, copied := pages, false
	for i, p := range pages {
		switch had := s.has(p.hash); {
		case had && !copied:
			unseen, copied = slices.Clone(pages[:i]), true // the first seen before: a copy from here on
		case !had && copied:
			unseen = append(unseen, p)
		}
	}
	if len(unseen) == 0 {
		return unseen
	}
	run := make([]int64, len(unseen))
	for i, p := range unseen {
		run[i] = p.hash
	}
	s.runs = append(s.runs, run)
	for n := len(s.runs); n >= 2 && len(s.runs[n-2]) <= 2*len(s.runs[n-1]); n-- {
		s.runs[n-2] = merge(s.runs[n-2], s.runs[n-1])
		s.runs[n-1] = nil
		s.runs = s.runs[:n-1]
	}
	return unseen
}

// has reports whether h is in a run, moving each run's cursor up to h: the hashes asked for
// must come in ascending order.
func (s *seen) has(h int64) bool {
	found := false
	for i, run := range s.runs {
		s.at[i] = gallop(run, s.at[i], h)
		found = found || s.at[i] < len(run) && run[s.at[i]] == h
	}
	return found
}

// gallop returns the index of the first hash of run, from from on, that is not below h: in steps
// doubling in length, then by halves, so that a cursor moving a little costs a little.
func gallop(run []int64, from int, h int64) int {
	lo, step := from, 1
	for lo+step < len(run) && run[lo+step] < h {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(run))
	i, _ := slices.BinarySearch(run[lo:hi], h)
	return lo + i
}

// merge returns the hashes of a and b, both sorted and with none in common, sorted.
func merge(a, b []int64) []int64 {
	out := make([]int64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}

// tellApart sorts pages of the file being read by hash and returns them once each (listed: the
// file's own), and those of them no earlier file or piece of the run listed (unseen, which the
// run takes): a URL listed again — further on, by another sitemap, by an attempt at this one that
// failed before, or spelt with a host in capitals — is the page first listed, counted once. The
// reader delivers repeats (sitemap.Options.Repeats): this sorted set costs 8 bytes a page where
// the reader's costs 8 to 16. A file's memo holds all it lists, so that a page it shares with
// another stays remembered by it when the other drops the page.
func (c *collector) tellApart(pages []filePage) (listed, unseen []filePage) {
	listed, unseen = dedupe(&c.seen, pages)
	c.rec.TotalURLs -= len(pages) - len(unseen)
	c.file.urls -= len(pages) - len(unseen)
	return listed, unseen
}

// tellApartOut counts the URLs the filter left out of the file being read once each, in the
// whole run, as tellApart counts pages.
func (c *collector) tellApartOut() {
	f := &c.file
	_, unseen := dedupe(&c.seenOut, f.out)
	c.rec.Filtered -= len(f.out) - len(unseen)
	f.filtered -= len(f.out) - len(unseen)
	f.out = f.out[:0]
}

// dedupe sorts pages by hash, the first listed first, and returns one of each (listed, in pages'
// array) and those of them s had not seen (unseen), which s now has.
func dedupe(s *seen, pages []filePage) (listed, unseen []filePage) {
	slices.SortFunc(pages, func(a, b filePage) int { return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.off, b.off)) })
	listed = slices.CompactFunc(pages, func(a, b filePage) bool { return a.hash == b.hash })
	return listed, s.add(listed)
}

// lacking returns those of hashes, sorted and distinct, that s has not seen.
func (s *seen) lacking(hashes []int64) []int64 {
	s.at = slices.Grow(s.at[:0], len(s.runs))[:len(s.runs)]
	clear(s.at)
	var out []int64
	for _, h := range hashes {
		if !s.has(h) {
			out = append(out, h)
		}
	}
	return out
}
