package feed

import (
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// titleFromURL makes a title of a URL's last path segment, for pages whose own title is not
// read: "/blog/my-first-post/" becomes "My first post", "/about.html" "About", and a site's root
// its host name.
func titleFromURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	seg := path.Base(strings.TrimSuffix(u.Path, "/"))
	if seg == "." || seg == "/" || seg == "" {
		return u.Host
	}
	if dec, err := url.PathUnescape(seg); err == nil {
		seg = dec
	}
	if ext := path.Ext(seg); ext != "" && len(ext) <= 5 {
		seg = strings.TrimSuffix(seg, ext)
	}
	words := strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '_' || r == '+' || unicode.IsSpace(r) })
	if len(words) == 0 {
		return u.Host
	}
	t := strings.Join(words, " ")
	first, n := utf8.DecodeRuneInString(t)
	return string(unicode.ToUpper(first)) + t[n:]
}
