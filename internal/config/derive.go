package config

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// schemeOf returns the scheme of a URL ("https" of "https://…", "ftp" of "ftp:…"), or "" for a
// file path ("sitemap.xml", "./out/s.xml"): a letter, then letters, digits, "+", "." or "-", then
// ":" (RFC 3986). Written out rather than a regexp: it costs nothing at start-up.
func schemeOf(s string) string {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'):
		case i > 0 && c == ':':
			return s[:i]
		default:
			return ""
		}
	}
	return ""
}

// isFilePath reports whether a sitemap reference is a local file rather than a URL: any value
// without a scheme. A file: URL has one, and is refused with the other schemes that are not http(s).
func isFilePath(s string) bool {
	return s != "" && (filepath.IsAbs(s) || schemeOf(s) == "")
}

// looksLikeHost reports whether a file path starts with what looks like a host name, as in
// example.com/sitemap.xml: its first segment, before a "/", has a dot. That is far more often a URL
// without its https:// than a directory, and a directory meant that way is written
// ./example.com/sitemap.xml. A path starting with "/" has an empty first segment, and one starting
// with "." or "~" is no host ("~" is no home directory here either: it is a relative path).
func looksLikeHost(s string) bool {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") {
		return false
	}
	first, _, found := strings.Cut(s, "/")
	return found && strings.Contains(first, ".")
}

// resolvePath makes p absolute against dir: a configuration file is read by cron jobs started from
// any directory, so a relative path means "next to the configuration file", never the working directory.
func resolvePath(dir, p string) string {
	if p == "" || dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// resolvePaths resolves the file paths of the configuration against c.Dir: those of each site
// (Site.resolveFiles), and the path of a sqlite: state.
func (c *Config) resolvePaths() {
	if p, ok := strings.CutPrefix(c.State, "sqlite:"); ok && p != ":memory:" && !strings.HasPrefix(p, "file:") {
		c.State = "sqlite:" + resolvePath(c.Dir, p)
	}
	for i := range c.Sites {
		c.Sites[i].resolveFiles(c.Dir)
	}
}

// resolveFiles resolves the file paths of a site against dir — sitemaps given as paths,
// feed.out, google.credentials, changes.dir — for the file's sites and the API's alike. A sitemap that looks
// like a host stays as written, for its error message.
func (s *Site) resolveFiles(dir string) {
	for j, sm := range s.Sitemaps {
		if isFilePath(sm) && !looksLikeHost(sm) {
			s.Sitemaps[j] = resolvePath(dir, sm)
		}
	}
	s.Feed.Out = resolvePath(dir, s.Feed.Out)
	s.Google.Credentials = resolvePath(dir, s.Google.Credentials)
	s.Changes.Dir = resolvePath(dir, s.Changes.Dir)
}

// httpURL parses s as an absolute http or https URL with a host, or returns nil.
func httpURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" {
		return nil
	}
	return u
}

// Host is the host of the site's baseUrl, with its port, in lower case: the host IndexNow names,
// and the one a page must be on to be submitted. It is "" before the site is validated.
func (s *Site) Host() string {
	if u := httpURL(s.BaseURL); u != nil {
		return strings.ToLower(u.Host)
	}
	return ""
}

// Scheme is the scheme of the site's baseUrl, http or https: the one a URL chosen to be submitted
// must have. It is "" before the site is validated.
func (s *Site) Scheme() string {
	if u := httpURL(s.BaseURL); u != nil {
		return u.Scheme
	}
	return ""
}

// derive fills the values that default to others: baseUrl from the first sitemap (stored without a
// trailing slash), indexnow.keyLocation from baseUrl and a well-formed key, the feed's title and
// description from the id and baseUrl's host, and its URL from baseUrl.
func (s *Site) derive() {
	if s.BaseURL == "" && len(s.Sitemaps) > 0 {
		if u := httpURL(s.Sitemaps[0]); u != nil {
			s.BaseURL = u.Scheme + "://" + u.Host
		}
	}
	s.BaseURL = strings.TrimSuffix(s.BaseURL, "/")
	base := httpURL(s.BaseURL)
	if s.IndexNow.KeyLocation == "" && base != nil && keyProblem(s.IndexNow.Key) == "" {
		s.IndexNow.KeyLocation = s.BaseURL + "/" + s.IndexNow.Key + ".txt"
	}
	if s.Feed.Title == "" && s.ID != "" {
		s.Feed.Title = s.ID + " — new pages"
	}
	if s.Feed.Description == "" && base != nil {
		s.Feed.Description = "New pages on " + s.Host()
	}
	if s.Feed.URL == "" && base != nil && !s.feedServed {
		file := "feed.xml"
		if s.Feed.Out != "" {
			file = path.Base(filepath.ToSlash(s.Feed.Out))
		}
		s.Feed.URL = s.BaseURL + "/" + file
	}
}
