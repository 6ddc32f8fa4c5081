package sitemap

import (
	"encoding/binary"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/publicsuffix"

	"github.com/sitepush/sitepush/internal/human"
)

// pageURL checks a <loc> value and returns the absolute http(s) URL to use. The common case — an
// absolute URL of printable ASCII — is checked in one pass and returned as is, without copying or
// url.Parse (which would cost more than the rest of the parse). Other values are percent-encoded
// where a browser would (spaces, control characters, invalid UTF-8), resolved against base when
// relative, and explained in note; skip says why a value cannot be used at all. A nil base means
// the sitemap is a local file, against which a page URL cannot be resolved.
func pageURL(b []byte, base *url.URL) (u []byte, note, skip string) {
	if isPlainHTTP(b) {
		return b, "", ""
	}
	raw := string(b)
	// XML reads CR LF and a lone CR as LF. The scanner leaves that to here, off the common path:
	// a URL with a line end inside is broken anyway, but it is percent-encoded as XML reads it.
	s := escapeLoose(strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\r", "\n"))
	if s != raw {
		note = fmt.Sprintf("URL %q has characters that must be percent-encoded; using %q", human.Clip(raw, 200), human.Clip(s, 200))
	}
	p, err := url.Parse(s)
	if err != nil {
		return nil, "", fmt.Sprintf("skipped %q: not a valid URL", human.Clip(raw, 200))
	}
	if p.Scheme == "" {
		if p.Host == "" && hostWithoutScheme(p.Path, base) {
			scheme := "https"
			if base != nil {
				scheme = base.Scheme
			}
			return nil, "", fmt.Sprintf("skipped %q: it starts with a host name but no scheme, so it is neither a URL nor a path: write it whole, like %s://%s, or as a path starting with /",
				human.Clip(raw, 200), scheme, human.Clip(s, 200))
		}
		if base == nil {
			return nil, "", fmt.Sprintf("skipped %q: a relative URL in a local file cannot be resolved; give absolute URLs", human.Clip(raw, 200))
		}
		p = base.ResolveReference(p)
		s = p.String()
		note = fmt.Sprintf("relative URL %q resolved to %s", human.Clip(raw, 200), human.Clip(s, 200))
	}
	if sch := strings.ToLower(p.Scheme); sch != "http" && sch != "https" {
		return nil, "", fmt.Sprintf("skipped %q: not an http(s) URL", human.Clip(raw, 200))
	}
	if p.Host == "" {
		return nil, "", fmt.Sprintf("skipped %q: the URL has no host", human.Clip(raw, 200))
	}
	return []byte(s), note, ""
}

// hostWithoutScheme reports whether the path of a relative reference begins with a host name:
// it starts with none of "/", "./" and "../", and its first segment is dot-separated labels of
// letters, digits and hyphens that name a host — two or more under a top-level domain of the
// Public Suffix List ("www.example.com/", "example.co.uk/p"), or, whatever its suffix (.test,
// .internal, an intranet name), beginning with "www." or being the sitemap's own host with or
// without "www." ("shop.test/a" in http://shop.test/sitemap.xml) — which a file name
// ("page.html", "index.php") is not. Resolved against the sitemap's URL, it would make up a URL
// (https://site/www.example.com/).
func hostWithoutScheme(path string, base *url.URL) bool {
	if strings.HasPrefix(path, "/") || strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../") {
		return false
	}
	first, _, _ := strings.Cut(path, "/")
	n := hostLabels(first)
	if n == 0 {
		return false
	}
	first = strings.ToLower(first)
	if strings.HasPrefix(first, "www.") || ownHost(first, base) {
		return true
	}
	_, icann := publicsuffix.PublicSuffix(first)
	return n >= 2 && icann
}

// hostLabels returns how many dot-separated labels of letters, digits and hyphens s is, as a
// host name is; 0 when it is not such labels.
func hostLabels(s string) int {
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if l == "" || strings.ContainsFunc(l, func(r rune) bool {
			return !('a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9' || r == '-')
		}) {
			return 0
		}
	}
	return len(labels)
}

// ownHost reports whether host (lower case) is the sitemap's own host, with or without "www.":
// the one host name a site writes without a scheme whose suffix may be on no public list.
func ownHost(host string, base *url.URL) bool {
	if base == nil {
		return false
	}
	own := strings.ToLower(base.Hostname())
	return strings.TrimPrefix(host, "www.") == strings.TrimPrefix(own, "www.")
}

// isPlainHTTP reports whether b is "http://" or "https://" (any case), a host, and nothing but
// printable ASCII: a URL that needs no further work.
func isPlainHTTP(b []byte) bool {
	n := httpPrefix(b)
	if n == 0 || n >= len(b) {
		return false
	}
	if c := b[n]; c == '/' || c == '?' || c == '#' {
		return false
	}
	return printableASCII(b)
}

// printableASCII reports whether every byte of b is in '!'…'~', eight bytes at a time: the
// classic SWAR tests for "a byte below 0x21" and "a byte above 0x7e" on a 64-bit word are exact
// as yes/no answers, and this runs for every URL of every sitemap.
func printableASCII(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var bad uint64
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		bad |= (x-ones*0x21)&^x | (x + ones*(0x7f-0x7e) | x)
	}
	for _, c := range b[i:] {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return bad&highs == 0
}

// httpPrefix returns the length of a leading "http://" or "https://" in any case, or 0.
func httpPrefix(b []byte) int {
	if len(b) < 7 || b[0]|0x20 != 'h' || b[1]|0x20 != 't' || b[2]|0x20 != 't' || b[3]|0x20 != 'p' {
		return 0
	}
	if b[4] == ':' && b[5] == '/' && b[6] == '/' {
		return 7
	}
	if len(b) >= 8 && b[4]|0x20 == 's' && b[5] == ':' && b[6] == '/' && b[7] == '/' {
		return 8
	}
	return 0
}

// escapeLoose percent-encodes what a browser would and what would hide in a URL: spaces and
// control characters, Unicode's too (U+00A0, U+2028, U+0085…), format characters (U+200B,
// U+202E…) and bytes that are not UTF-8, each byte of its UTF-8. Everything else — the non-ASCII
// letters of internationalised URLs included — stays as it is.
func escapeLoose(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && n == 1 || r <= ' ' || r == 0x7f ||
			r >= utf8.RuneSelf && (unicode.IsSpace(r) || unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp, unicode.Cf))
		switch {
		case bad:
			if sb.Len() == 0 {
				sb.WriteString(s[:i])
			}
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&sb, "%%%02X", c)
			}
		case sb.Len() > 0:
			sb.WriteString(s[i : i+n])
		}
		i += n
	}
	if sb.Len() == 0 {
		return s
	}
	return sb.String()
}
