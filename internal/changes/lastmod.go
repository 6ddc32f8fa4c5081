package changes

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// StampWindow is how far apart the lastmods of one build's stamp may lie. A generator that
// stamps URLs with the build's time writes one value (Next.js' `lastModified: new Date()`,
// Jekyll's site.time, MkDocs' build date), or values a few milliseconds apart as it writes the
// pages (next-sitemap: 5,000 URLs within 8 ms; Quarto: 72 within 186 ms in the corpus of
// published sitemaps), or the file times a CI checkout left (Hugo), which a large repository
// spreads over seconds. True lastmods are edits: most of a site's pages edited within two
// minutes of one another is a bulk rewrite, whose lastmods moved together and say nothing
// about each page either. On the corpus any window from 1 s to 10 min gives the same verdicts;
// exact equality would trust next-sitemap's and Quarto's stamps, and an hour would distrust
// Hexo's true lastmods (posts edited the same morning). Two minutes sits inside that range
// with room for a slow checkout.
const StampWindow = 2 * time.Minute

// Lastmods gathers the lastmods of one sitemap's entries as they are read, to judge at the end
// whether they tell pages apart. The zero value is ready for use.
//
// It keeps each lastmod, as 8 bytes of Unix milliseconds, because the largest group of
// lastmods within StampWindow can only be found exactly over all of them: 400 KB for the
// 50,000 URLs a sitemap may hold, and for one that breaks that limit 8 bytes for every 50 of
// the sitemap at the most (an entry with a lastmod takes 50 bytes at the least), under the
// reader's cap on its size; the slice's growth adds about a quarter while it is filled.
// Entries without a lastmod are only counted.
type Lastmods struct {
	urls int
	ms   []int64
}

// Add counts one entry of the sitemap; a zero lastmod stands for an entry that has none.
func (l *Lastmods) Add(lastmod time.Time) {
	l.urls++
	if !lastmod.IsZero() {
		l.ms = append(l.ms, lastmod.UnixMilli())
	}
}

// Verdict says whether the sitemap's lastmods, as added so far, are to be trusted. It may be
// called more than once, and entries added after it.
//
// They are trusted when most of its URLs — more than half — have a lastmod of their own: one
// that is neither missing nor part of a build's stamp, the largest group of lastmods within
// StampWindow of one another when it holds two URLs or more. Any other sitemap is checked by
// content. "Most" keeps an honest blog trusted though several posts share a day, and a URL
// with no lastmod counts against trust as a stamped one does: lastmod cannot tell when either
// changed. A sitemap too small to judge — a single URL — is checked by content: that costs a
// page fetch or two a run, where trusting a stamp would send its URLs again at every build.
func (l *Lastmods) Verdict() Verdict {
	slices.Sort(l.ms)
	v := Verdict{URLs: l.urls, Dated: len(l.ms), Distinct: distinct(l.ms)}
	first, n, spread := largestGroup(l.ms, StampWindow.Milliseconds())
	if n >= 2 || n == 1 && l.urls == 1 {
		v.Stamp = time.UnixMilli(first).UTC()
		v.Shared, v.Spread = n, time.Duration(spread)*time.Millisecond
	}
	own := v.Dated - v.Shared
	v.Trusted = 2*own > v.URLs
	return v
}

// Verdict is what Lastmods made of one sitemap's lastmods.
type Verdict struct {
	// Trusted is set when the lastmods tell pages apart: a page is changed when its lastmod
	// moves. Otherwise the sitemap's pages are checked by their content.
	Trusted bool
	// URLs counts the sitemap's entries, Dated those with a lastmod, and Distinct the
	// different lastmods among them (to the millisecond).
	URLs, Dated, Distinct int
	// Stamp is the earliest lastmod of the build's stamp: the largest group of lastmods
	// within StampWindow of one another, when it holds two URLs or more (or the sitemap's only
	// URL). Shared counts the URLs of that group, and Spread is how far its lastmods lie
	// apart. All three are zero when no two lastmods are that close.
	Stamp  time.Time
	Shared int
	Spread time.Duration
}

// String says in a few words what the verdict is and why, as `sitepush check` prints it.
func (v Verdict) String() string {
	switch {
	case v.URLs == 0:
		return "content: no URL"
	case v.Dated == 0:
		return "content: no lastmod"
	case v.Trusted && v.Dated == v.URLs:
		return fmt.Sprintf("lastmod: trusted, %d distinct values", v.Distinct)
	case v.Trusted:
		return fmt.Sprintf("lastmod: trusted, %d distinct values on %d of %d URLs", v.Distinct, v.Dated, v.URLs)
	}
	var why []string
	if undated := v.URLs - v.Dated; undated > 0 {
		why = append(why, fmt.Sprintf("%d of %d URLs have no lastmod", undated, v.URLs))
	}
	if v.Shared > 0 && 2*v.Dated > v.URLs {
		// Not when the URLs without lastmod are most: a group of a few is then no telling sign.
		why = append(why, v.stamp())
	}
	return "content: " + strings.Join(why, "; ")
}

// stamp describes the build's stamp.
func (v Verdict) stamp() string {
	at := v.Stamp.Format(time.RFC3339Nano)
	urls := fmt.Sprintf("%d of %d URLs", v.Shared, v.URLs)
	if v.Shared == v.URLs {
		urls = fmt.Sprintf("%d URLs", v.URLs)
	}
	switch {
	case v.URLs == 1:
		return fmt.Sprintf("its only URL has the lastmod %s, which cannot be told from a build's stamp", at)
	case v.Spread == 0:
		return fmt.Sprintf("%s share the lastmod %s, a build's stamp", urls, at)
	}
	return fmt.Sprintf("%s have lastmods within %s of %s, a build's stamp", urls, span(v.Spread), at)
}

// span writes a stamp's spread in milliseconds below a second, else in whole seconds rounded
// up, so that "within" stays true.
func span(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", (d+time.Second-1)/time.Second)
}

// distinct counts the different values of a sorted slice.
func distinct(sorted []int64) int {
	n := 0
	for i, x := range sorted {
		if i == 0 || x != sorted[i-1] {
			n++
		}
	}
	return n
}

// largestGroup finds the most values of a sorted slice that lie within window of one another:
// their first value, how many they are, and how far the last lies from the first. Of groups
// as large, the earliest is taken.
func largestGroup(sorted []int64, window int64) (first int64, n int, spread int64) {
	lo := 0
	for hi, x := range sorted {
		for x-sorted[lo] > window {
			lo++
		}
		if hi-lo+1 > n {
			first, n, spread = sorted[lo], hi-lo+1, x-sorted[lo]
		}
	}
	return first, n, spread
}
