package config

import (
	"fmt"
	"regexp"
	"strings"
)

// compileGlob turns a URL path glob into an anchored regexp. "*" matches within one path segment,
// "?" one character other than "/", and "**" as a whole segment any number of segments, none
// included: "/blog/**" matches /blog, /blog/ and /blog/a/b, and "/a/**/z" matches /a/z and /a/b/c/z.
// Every other character matches itself.
func compileGlob(glob string) (*regexp.Regexp, error) {
	if !strings.HasPrefix(glob, "/") {
		return nil, fmt.Errorf(`must start with "/", like "/%s"`, glob)
	}
	var b strings.Builder
	b.WriteString("^")
	segs := strings.Split(glob[1:], "/")
	for i, seg := range segs {
		switch {
		case seg == "**" && i == len(segs)-1:
			b.WriteString("(?:/.*)?")
		case seg == "**":
			b.WriteString("(?:/[^/]*)*")
		case strings.Contains(seg, "**"):
			return nil, fmt.Errorf(`uses "**" inside a segment; "**" must be a whole segment, like /blog/** or /a/**/b`)
		default:
			b.WriteString("/")
			b.WriteString(segmentPattern(seg))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// segmentPattern translates one segment's "*" and "?" and quotes everything else.
func segmentPattern(seg string) string {
	var b strings.Builder
	for _, r := range seg {
		switch r {
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return b.String()
}

// checkGlobs compiles a list of globs, reporting each bad one by its index.
func checkGlobs(field string, globs []string, p *problems) []*regexp.Regexp {
	var out []*regexp.Regexp
	for i, g := range globs {
		re, err := compileGlob(g)
		if err != nil {
			p.fieldf(field, "%s[%d] %q %v", field, i, g, err)
			continue
		}
		out = append(out, re)
	}
	return out
}

// PathAllowed reports whether a URL path passes the site's include and exclude globs: an empty
// include allows every path, and exclude wins over include. The path is matched as given (the
// runner passes the URL's path, without query); "" counts as "/". It needs a validated site.
func (s *Site) PathAllowed(path string) bool {
	if path == "" {
		path = "/"
	}
	for _, re := range s.compiled.exclude {
		if re.MatchString(path) {
			return false
		}
	}
	if len(s.compiled.include) == 0 {
		return true
	}
	for _, re := range s.compiled.include {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}
