// Package sitemap reads sitemaps as a crawler meets them: XML urlsets and indexes, plain-text
// sitemaps, RSS and Atom feeds, gzipped or not, discovered through robots.txt or given directly,
// streaming, in bounded memory, and tolerant of what real generators write.
package sitemap

import (
	"errors"
	"fmt"
	"time"
)

// Entry is one page URL read from a sitemap.
type Entry struct {
	// URL is an absolute http(s) URL. Its bytes are the reader's and are valid only until the
	// callback returns: copy them (string(e.URL)) to keep the URL. Handing out the reader's own
	// buffer saves an allocation and a fresh page of memory every few dozen URLs, which is a
	// quarter of the cost of reading a big sitemap.
	URL []byte
	// Lastmod is the page's last modification in UTC; zero when the sitemap gives none (or one
	// that could not be read).
	Lastmod time.Time
	// Sitemap is the sitemap the entry came from.
	Sitemap string
}

// Kind is the format of a sitemap document.
type Kind int

// The formats sitepush reads.
const (
	KindUnknown Kind = iota
	KindURLSet
	KindIndex
	KindText
	KindRSS
	KindAtom
)

func (k Kind) String() string {
	switch k {
	case KindURLSet:
		return "urlset"
	case KindIndex:
		return "sitemapindex"
	case KindText:
		return "text"
	case KindRSS:
		return "rss"
	case KindAtom:
		return "atom"
	}
	return "unknown"
}

// Sitemap is the outcome of reading one sitemap file.
type Sitemap struct {
	URL  string
	Kind Kind
	// Index is the index that lists the sitemap, "" for one the read starts from: what to fix
	// when it cannot be read.
	Index string
	Depth int // 0 for the sitemaps a read starts from, +1 per index level
	// Entries counts the page URLs (or, for an index, the child sitemaps) taken from this file;
	// URLs already read from another sitemap are not counted again (unless Options.Repeats).
	Entries int
	// NotModified is set when the Cache knew the sitemap and it had not changed: the server
	// answered 304, the local file has the size and time it had, or its bytes are the same. Its
	// entries were not delivered again.
	NotModified bool
	// Validators identify what was read (or, when NotModified, what the Cache knew), for a
	// Cache of later reads; a sitemap that failed has the ones its answer gave, and no Hash.
	Validators Validators
	// Received counts the bytes of its body that arrived in the last attempt at it, as sent
	// (compressed or not); Length is that body's length as announced, -1 when it was not.
	Received, Length int64
	// Err is why the sitemap could not be read, or stopped early; nil when it was read whole.
	Err error
}

// Result describes every sitemap a Read visited, in the order they were read.
type Result struct {
	Sitemaps []Sitemap
	// URLs is the number of distinct page URLs delivered (of page entries, with Options.Repeats).
	URLs int
}

// Failed returns the sitemaps that could not be read whole.
func (r *Result) Failed() []Sitemap {
	var out []Sitemap
	for _, s := range r.Sitemaps {
		if s.Err != nil {
			out = append(out, s)
		}
	}
	return out
}

// Unreadable reports whether the read failed as a whole: some sitemap failed and no sitemap of
// page URLs could be read, even in part.
func (r *Result) Unreadable() bool {
	failed := false
	for _, s := range r.Sitemaps {
		if s.Err != nil {
			failed = true
		}
		if s.Kind != KindIndex && (s.Err == nil || s.Entries > 0 || s.NotModified) {
			return false
		}
	}
	return failed
}

// Unread says why a read that is Unreadable found no page: no sitemap could be read at all, or
// the indexes that were read list only sitemaps that could not be.
func (r *Result) Unread() string {
	indexes, listed := 0, 0
	for _, s := range r.Sitemaps {
		switch {
		case s.Kind == KindIndex && s.Err == nil:
			indexes++
		case s.Depth > 0:
			listed++
		}
	}
	switch indexes {
	case 0:
		return "no sitemap could be read"
	case 1:
		return fmt.Sprintf("the sitemap index was read, but none of the %d sitemaps it lists could be read", listed)
	}
	return fmt.Sprintf("%d sitemap indexes were read, but none of the %d sitemaps they list could be read", indexes, listed)
}

// Warning is something a reader skipped or worked around; the read went on.
type Warning struct {
	Sitemap string
	Message string
}

func (w Warning) String() string { return w.Sitemap + ": " + w.Message }

// ErrNotSitemap marks a body that is not a sitemap in any format sitepush reads.
var ErrNotSitemap = errors.New("not a sitemap")

// ErrTooLarge marks a sitemap that exceeded the configured size after decompression.
var ErrTooLarge = errors.New("sitemap too large")

func notSitemap(why string) error { return fmt.Errorf("%w: %s", ErrNotSitemap, why) }
