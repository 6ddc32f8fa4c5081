package sitemap

import (
	"bufio"
	"io"
	"net/url"
	"strings"
)

// maxRobotsBytes is the part of robots.txt that is read, as Google reads 500 KiB.
const maxRobotsBytes = 500 << 10

// robotsSitemaps returns the Sitemap: lines of a robots.txt, in order and each once. The field
// name is matched in any case; relative values are resolved against the robots.txt URL.
func robotsSitemaps(r io.Reader, base *url.URL) []*url.URL {
	var out []*url.URL
	seen := map[string]bool{}
	sc := bufio.NewScanner(io.LimitReader(r, maxRobotsBytes))
	sc.Buffer(make([]byte, 4096), maxRobotsBytes)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "sitemap") {
			continue
		}
		ref, err := url.Parse(strings.TrimSpace(val))
		if err != nil || ref.String() == "" {
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
