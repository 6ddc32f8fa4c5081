package runner

import (
	"container/heap"
	"slices"

	"github.com/sitepush/sitepush/internal/channel"
)

// newest keeps the n newest pages seen, in bounded memory: by lastmod, newest first, and pages
// without one after all dated pages, in the order the sitemaps list them.
type newest struct {
	n     int
	seq   int
	pages pageHeap // the worst kept page on top
}

type ranked struct {
	page channel.Page
	seq  int
}

// before reports whether a ranks before (is newer than) b.
func (a ranked) before(b ranked) bool {
	switch az, bz := a.page.Lastmod.IsZero(), b.page.Lastmod.IsZero(); {
	case az != bz:
		return !az
	case !az && !a.page.Lastmod.Equal(b.page.Lastmod):
		return a.page.Lastmod.After(b.page.Lastmod)
	}
	return a.seq < b.seq
}

type pageHeap []ranked

func (h pageHeap) Len() int           { return len(h) }
func (h pageHeap) Less(i, j int) bool { return h[j].before(h[i]) }
func (h pageHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pageHeap) Push(x any)        { *h = append(*h, x.(ranked)) }
func (h *pageHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// add offers one page.
func (nw *newest) add(p channel.Page) {
	r := ranked{p, nw.seq}
	nw.seq++
	switch {
	case nw.n <= 0:
	case len(nw.pages) < nw.n:
		heap.Push(&nw.pages, r)
	case r.before(nw.pages[0]):
		nw.pages[0] = r
		heap.Fix(&nw.pages, 0)
	}
}

// list returns the pages kept, newest first.
func (nw *newest) list() []channel.Page {
	rs := slices.Clone(nw.pages)
	slices.SortFunc(rs, func(a, b ranked) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	out := make([]channel.Page, len(rs))
	for i, r := range rs {
		out[i] = r.page
	}
	return out
}
