package runner

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/config"
)

// authority is where a URL's host is, and whether its scheme or host may have capitals: ASCII
// ones, or any letter outside ASCII. Most URLs have none, and are compared and kept as they are.
type authority struct {
	start, end int
	folded     bool
}

// authorityOf finds a URL's host in one pass over its scheme and host.
func authorityOf(u []byte) authority {
	a := authority{start: bytes.Index(u, []byte("://")) + 3, end: len(u)}
	for i, c := range u {
		if i >= a.start && (c == '/' || c == '?' || c == '#') {
			a.end = i
			break
		}
		if 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf {
			a.folded = true
		}
	}
	return a
}

// InScope reports whether a run of site takes a URL: on baseUrl's host, and passing the
// include/exclude globs. What `sitepush check` and `sitepush submit` count and refuse by.
func InScope(site *config.Site, u string) bool {
	b := []byte(u)
	return strings.Contains(u, "://") && inScope(site, site.Host(), b, authorityOf(b))
}

// inScope is InScope of a URL whose authority is found, against host, baseUrl's in lower case.
func inScope(site *config.Site, host string, u []byte, a authority) bool {
	h := u[a.start:a.end]
	if a.folded && !strings.EqualFold(string(h), host) || !a.folded && string(h) != host {
		return false
	}
	if len(site.Include) == 0 && len(site.Exclude) == 0 {
		return true
	}
	path := u[a.end:]
	if q := bytes.IndexAny(path, "?#"); q >= 0 {
		path = path[:q]
	}
	return site.PathAllowed(string(path))
}

// canonical writes a URL's scheme and host in lower case, as engines compare them: a sitemap's
// "https://WWW.Example.com/x" is the page https://www.example.com/x, and IndexNow refuses the
// former as not on the site's host. The path is left alone: it is case-sensitive.
func canonical(u []byte, a authority) []byte {
	if !a.folded || !bytes.ContainsFunc(u[:a.end], unicode.IsUpper) {
		return u
	}
	out := make([]byte, len(u))
	copy(out, bytes.ToLower(u[:a.end]))
	copy(out[a.end:], u[a.end:])
	return out
}
