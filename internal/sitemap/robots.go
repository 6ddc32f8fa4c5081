package sitemap

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
)

// maxRobotsBytes is the part of robots.txt that is read, as Google reads 500 KiB.
const maxRobotsBytes = 500 << 10

// robotsSitemaps returns the sitemaps a robots.txt lists, in order and each once, read as
// Google's robots.txt parser reads them: a field whose name begins with "sitemap" or "site-map"
// in any case ("Sitemap:", "Site-map:", "SITEMAPS:"), with whitespace allowed before the colon,
// or instead of it when the line holds only the name and one value; a byte order mark is
// skipped and lines end at CR, LF or both. A value is percent-encoded where a browser would, as a
// <loc> is (escapeLoose: spaces, controls, U+0085, U+2028…), relative values are resolved against
// the robots.txt URL, and values that are not http(s) URLs are ignored.
func robotsSitemaps(text []byte, base *url.URL) []*url.URL {
	var out []*url.URL
	seen := map[string]bool{}
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	for len(text) > 0 {
		line := text
		if i := bytes.IndexAny(text, "\r\n"); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		val, ok := sitemapField(string(line))
		if !ok {
			continue
		}
		ref, err := url.Parse(escapeLoose(val))
		if err != nil {
			continue
		}
		u := base.ResolveReference(ref)
		if u.Scheme != "http" && u.Scheme != "https" {
			continue
		}
		u.Fragment = ""
		if s := u.String(); !seen[s] {
			seen[s] = true
			out = append(out, u)
		}
	}
	return out
}

// sitemapField returns the value of a robots.txt line that is a sitemap field.
func sitemapField(line string) (string, bool) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	end := strings.IndexAny(line, ": \t")
	if end <= 0 {
		return "", false
	}
	key, rest := strings.ToLower(line[:end]), strings.TrimLeft(line[end:], " \t")
	if !strings.HasPrefix(key, "sitemap") && !strings.HasPrefix(key, "site-map") {
		return "", false
	}
	if val, ok := strings.CutPrefix(rest, ":"); ok {
		val = strings.TrimSpace(val)
		return val, val != ""
	}
	// No colon: whitespace separates the name from one value, or the line is something else.
	return rest, rest != "" && !strings.ContainsAny(rest, " \t")
}

// discoveryRoot reports whether src asks for discovery — a site root or a robots.txt URL — and
// returns the robots.txt URL to read.
func discoveryRoot(u *url.URL) (*url.URL, bool) {
	if u.Scheme != "http" && u.Scheme != "https" || u.RawQuery != "" {
		return nil, false
	}
	if u.Path == "" || u.Path == "/" {
		return u.ResolveReference(&url.URL{Path: "/robots.txt"}), true
	}
	if strings.HasSuffix(u.Path, "/robots.txt") {
		return u, true
	}
	return nil, false
}

// Robots reads the robots.txt of a site — root is the site's root URL or its robots.txt URL —
// as a Read discovering the site would, and returns the sitemaps it lists, in order and each
// once. The error says why robots.txt could not be read, or that ctx ended.
func (r *Reader) Robots(ctx context.Context, root string) ([]string, error) {
	u, err := url.Parse(root)
	if err != nil {
		return nil, err
	}
	robots, ok := discoveryRoot(u)
	if !ok {
		return nil, fmt.Errorf("%s is neither a site root nor a robots.txt URL", root)
	}
	w := &walk{r: r, ctx: ctx, seenMap: map[string]bool{}}
	w.client = w.newClient()
	list, err := w.readRobots(robots)
	if err != nil {
		if f := fatal(ctx, err); f != nil {
			return nil, f
		}
		return nil, err
	}
	names := make([]string, len(list))
	for i, u := range list {
		names[i] = u.String()
	}
	return names, nil
}
