package fingerprint

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// metaCharset returns the charset the first <meta charset> or <meta http-equiv=Content-Type> of
// head declares, "" when none does before the body starts.
func metaCharset(head []byte) string {
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Body || !inHead(a):
				return ""
			case a == atom.Meta && hasAttr:
				if label := declaredCharset(z); label != "" {
					return label
				}
			}
		}
	}
}

// declaredCharset returns the charset a <meta> tag declares, "" if none.
func declaredCharset(z *html.Tokenizer) string {
	var content []byte
	contentType := false
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "charset":
			return string(bytes.TrimSpace(v))
		case "http-equiv":
			contentType = bytes.EqualFold(bytes.TrimSpace(v), []byte("content-type"))
		case "content":
			content = v
		}
	}
	if !contentType {
		return ""
	}
	return charsetParam(content)
}

// charsetParam extracts the charset of a Content-Type value as the HTML standard does, more
// leniently than a MIME parser: "text/html;charset=Shift_JIS" and `charset="utf-8"` both count.
func charsetParam(content []byte) string {
	i := bytes.Index(bytes.ToLower(content), []byte("charset"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(content[i+len("charset"):], " \t\n\f\r")
	if len(rest) == 0 || rest[0] != '=' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\n\f\r")
	if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
		if end := bytes.IndexByte(rest[1:], rest[0]); end >= 0 {
			return string(rest[1 : 1+end])
		}
		return ""
	}
	if end := bytes.IndexAny(rest, " \t\n\f\r;"); end >= 0 {
		rest = rest[:end]
	}
	return string(rest)
}
