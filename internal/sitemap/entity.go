package sitemap

import (
	"bytes"
	"unicode/utf8"
)

// appendUnescaped appends s to dst with XML's five named entities and numeric character
// references decoded. Anything else after a '&' is kept literally, so a stray '&' in an
// unescaped query string survives, and "&amp;amp;" decodes once, to "&amp;".
func appendUnescaped(dst, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, '&')
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		s = s[i:]
		r, n := entity(s)
		if n == 0 {
			dst = append(dst, '&')
			s = s[1:]
			continue
		}
		dst = utf8.AppendRune(dst, r)
		s = s[n:]
	}
}

// entity decodes the reference at the start of s ("&amp;", "&#38;", "&#x26;") and returns the
// character and the reference's length, or a length of 0 when s does not start with one.
func entity(s []byte) (rune, int) {
	semi := bytes.IndexByte(s, ';')
	if semi < 2 || semi > 12 {
		return 0, 0
	}
	name := s[1:semi]
	switch string(name) {
	case "amp":
		return '&', semi + 1
	case "lt":
		return '<', semi + 1
	case "gt":
		return '>', semi + 1
	case "quot":
		return '"', semi + 1
	case "apos":
		return '\'', semi + 1
	}
	if name[0] != '#' || len(name) < 2 {
		return 0, 0
	}
	r, ok := charRef(name[1:])
	if !ok {
		return 0, 0
	}
	return r, semi + 1
}

// charRef parses the digits of a character reference: decimal, or hexadecimal after an 'x'.
func charRef(d []byte) (rune, bool) {
	base := rune(10)
	if d[0] == 'x' || d[0] == 'X' {
		base, d = 16, d[1:]
	}
	if len(d) == 0 {
		return 0, false
	}
	var r rune
	for _, c := range d {
		var v rune
		switch {
		case c >= '0' && c <= '9':
			v = rune(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			v = rune(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			v = rune(c-'A') + 10
		default:
			return 0, false
		}
		r = r*base + v
		if r > utf8.MaxRune {
			return 0, false
		}
	}
	return r, r > 0 && utf8.ValidRune(r)
}

// trimSpace removes XML whitespace from both ends of s.
func trimSpace(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}
