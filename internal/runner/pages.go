package runner

import (
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"slices"
	"sort"

	"github.com/sitepush/sitepush/internal/model"
)

// pageBytes is the size of one page in a memo's pages (model.SitemapMemo.Pages), sorted by hash:
// the page's hash then its lastmod (Unix ms, 0 for none), little-endian. The format is the
// runner's (memos.read writes it, pagesOf reads it); states keep the bytes as they are.
const pageBytes = 16

// wholePages reports whether a memo's pages are whole pages. No run writes a part of one: pages
// that are not whole were damaged where the state keeps them (a KV value cut short, or written by
// hand), and are not used.
func wholePages(b []byte) bool { return len(b)%pageBytes == 0 }

// usable reports whether the pages read of a sitemap's memo are whole. A memo whose pages are not
// is forgotten, with a warning — neither used nor kept for the runs after — so that its sitemap is
// read whole again and its pages looked up: by this run when it has not read the sitemap yet, else
// by the next.
func (m *memos) usable(name string, pages []byte) bool {
	if wholePages(pages) {
		return true
	}
	if m.warn != nil {
		m.warn(m.site, fmt.Sprintf("the memo of sitemap %s holds %d bytes of pages, not whole pages of %d: dropped; the sitemap is read whole again",
			name, len(pages), pageBytes))
	}
	delete(m.unfinished, name)
	delete(m.settled, name)
	delete(m.inUse, name)
	delete(m.has, name)
	// A copy: endRead may be ranging over the kept memos.
	m.kept = slices.DeleteFunc(slices.Clone(m.kept), func(k model.SitemapMemo) bool { return k.Sitemap == name })
	return false
}

func pageHash(b []byte, at int) int64 { return int64(binary.LittleEndian.Uint64(b[at:])) }

// pagesOf yields the pages of a memo's bytes (model.SitemapMemo.Pages), whole pages only.
func pagesOf(b []byte) iter.Seq[filePage] {
	return func(yield func(filePage) bool) {
		for at := 0; at+pageBytes <= len(b); at += pageBytes {
			if !yield(filePage{hash: pageHash(b, at), lastmod: pageLastmod(b, at)}) {
				return
			}
		}
	}
}

func pageLastmod(b []byte, at int) int64 { return int64(binary.LittleEndian.Uint64(b[at+8:])) }

// InSitemaps reports whether the site's sitemaps list a URL, as the runs remember them (their
// memos, settled, unsettled or of a read over several runs); known is false when no run remembers a
// sitemap of the site, as before its first whole read, or after a forced run of a site without
// memos. It reads each memo's pages, 16 bytes a page, and looks the URL's hash up in them.
func InSitemaps(ctx context.Context, st State, site, u string) (in, known bool, err error) {
	memos, err := st.SitemapMemos(ctx, site)
	if err != nil {
		return false, false, err
	}
	b := []byte(u)
	h := URLHash(canonical(b, authorityOf(b)))
	for name, memo := range memos {
		if memo.Index {
			continue
		}
		pages, err := st.SitemapPages(ctx, site, name)
		if err != nil {
			return false, false, err
		}
		if !wholePages(pages) || pages == nil && memo.URLs > 0 {
			continue // damaged, or not kept: this sitemap tells nothing
		}
		known = true
		if hasPage(pages, h) {
			return true, true, nil
		}
	}
	return false, known, nil
}

// hasPage reports whether a memo's pages, sorted by hash, hold the page of hash h.
func hasPage(pages []byte, h int64) bool {
	n := len(pages) / pageBytes
	i := sort.Search(n, func(i int) bool { return pageHash(pages, i*pageBytes) >= h })
	return i < n && pageHash(pages, i*pageBytes) == h
}
