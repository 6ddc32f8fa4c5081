package sitemap

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// appendUnescaped appends s to dst with XML's five predefined entities and numeric character
// references decoded, and reports whether every reference in s could be decoded. A reference to
// any other entity — one a DOCTYPE declares, internally or externally, or one declared nowhere —
// is never expanded, and neither is a character reference to no character: both are kept as
// written and make the value unusable as a URL, which the caller must check. A '&' that starts
// no reference at all, as in an unescaped query string ("?a=1&b=2"), is kept as written and
// does no harm; "&amp;amp;" decodes once, to "&amp;".
func appendUnescaped(dst, s []byte) ([]byte, bool) {
	ok := true
	for {
		i := bytes.IndexByte(s, '&')
		if i < 0 {
			return append(dst, s...), ok
		}
		dst = append(dst, s[:i]...)
		s = s[i:]
		r, n, known := reference(s)
		if !known {
			if n == 0 {
				n = 1
			} else {
				ok = false
			}
			dst = append(dst, s[:n]...)
			s = s[n:]
			continue
		}
		dst = utf8.AppendRune(dst, r)
		s = s[n:]
	}
}

// reference reads the reference at the start of s, which begins with '&': an entity reference
// ("&amp;", "&name;") or a character reference ("&#38;", "&#x26;"). It returns the reference's
// length, 0 when s starts with none, and the character when known says it was decoded. It reads
// only as far as the reference's name or digits go, so a value full of '&' costs linear time.
func reference(s []byte) (r rune, n int, known bool) {
	i := 1
	if len(s) > 1 && s[1] == '#' {
		hex := len(s) > 2 && s[2]|0x20 == 'x'
		i = 2
		if hex {
			i = 3
		}
		start := i
		for i < len(s) && isDigit(s[i], hex) {
			i++
		}
		if i == start || i == len(s) || s[i] != ';' {
			return 0, 0, false
		}
		r, ok := charRef(s[start:i], hex)
		return r, i + 1, ok
	}
	for i < len(s) && (isNameStart(s[i]) || i > 1 && isNameByte(s[i])) {
		i++
	}
	if i == 1 || i == len(s) || s[i] != ';' {
		return 0, 0, false
	}
	switch string(s[1:i]) {
	case "amp":
		return '&', i + 1, true
	case "lt":
		return '<', i + 1, true
	case "gt":
		return '>', i + 1, true
	case "quot":
		return '"', i + 1, true
	case "apos":
		return '\'', i + 1, true
	}
	return 0, i + 1, false
}

// charRef parses the digits of a character reference, decimal or (hex) hexadecimal, and
// reports whether they name a character.
func charRef(d []byte, hex bool) (rune, bool) {
	base := rune(10)
	if hex {
		base = 16
	}
	var r rune
	for _, c := range d {
		v := rune(c - '0')
		if c > '9' {
			v = rune(c|0x20-'a') + 10
		}
		r = r*base + v
		if r > utf8.MaxRune {
			return 0, false
		}
	}
	return r, r > 0 && utf8.ValidRune(r)
}

func isDigit(c byte, hex bool) bool {
	return c >= '0' && c <= '9' || hex && (c|0x20 >= 'a' && c|0x20 <= 'f')
}

// isNameByte reports whether c may continue an XML name (non-ASCII bytes are taken as letters).
func isNameByte(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '-' || c == '.'
}

// trimSpace removes whitespace from both ends of s: XML's own, and the Unicode spaces that
// editors, word processors and copy-paste leave around URLs (see isUnicodeSpace). Values of
// ASCII only, nearly all, cost two byte comparisons more than trimming XML whitespace.
func trimSpace(s []byte) []byte {
	s = trimXMLSpace(s)
	for len(s) > 0 && (s[0] >= utf8.RuneSelf || s[len(s)-1] >= utf8.RuneSelf) {
		n := len(s)
		if r, size := utf8.DecodeRune(s); isUnicodeSpace(r) {
			s = s[size:]
		}
		if r, size := utf8.DecodeLastRune(s); isUnicodeSpace(r) {
			s = s[:len(s)-size]
		}
		if len(s) == n {
			break
		}
		s = trimXMLSpace(s)
	}
	return s
}

// trimXMLSpace removes XML whitespace from both ends of s.
func trimXMLSpace(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// isUnicodeSpace reports whether r is a space beyond ASCII that is trimmed from values: Unicode's
// White_Space characters (no-break, en to hair, line and paragraph separators, narrow no-break,
// medium mathematical, ideographic, Ogham, next line), and the zero-width space and byte order
// mark, which are invisible. None can begin or end a URL as written.
func isUnicodeSpace(r rune) bool {
	return r >= utf8.RuneSelf && unicode.IsSpace(r) || r == '\u200b' || r == '\ufeff'
}
