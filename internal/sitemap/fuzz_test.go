package sitemap

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var charRefPattern = regexp.MustCompile(`&#([xX]?)([0-9a-fA-F]+);`)

// FuzzParse feeds arbitrary bytes to the document parser. It must never panic or hang, the fast
// path must agree with the token-by-token path, and on every document encoding/xml accepts as
// well-formed both must find exactly the entries a reference reader built on encoding/xml finds.
// Its seeds run with the normal tests; `go test -fuzz FuzzParse` explores further.
func FuzzParse(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		kind, fastItems, _, fastErr := parseDoc(t, string(doc), false, false)
		_, slowItems, _, slowErr := parseDoc(t, string(doc), true, false)
		wellFormed := wellFormedXML(doc)
		if wellFormed && (fastErr == nil) != (slowErr == nil) {
			t.Fatalf("fast path error %v, slow path error %v", fastErr, slowErr)
		}
		if !wellFormed || fastErr != nil || kind == KindText {
			return
		}
		if !slices.Equal(fastItems, slowItems) {
			t.Fatalf("fast path %q, slow path %q", fastItems, slowItems)
		}
		if want := oracle(doc); !slices.Equal(xmlLineEnds(fastItems), want) {
			t.Fatalf("parser %q, encoding/xml reference %q", fastItems, want)
		}
	})
}

// xmlLineEnds turns CR LF and CR into LF in items, as encoding/xml reads any text. The scanner
// leaves values as written, which costs nothing, and pageURL reads line ends as XML does.
func xmlLineEnds(items []item) []item {
	out := make([]item, len(items))
	nl := strings.NewReplacer("\r\n", "\n", "\r", "\n")
	for i, it := range items {
		out[i] = item{nl.Replace(it.loc), nl.Replace(it.lastmod)}
	}
	return out
}

// wellFormedXML reports whether encoding/xml reads doc whole, strictly, as UTF-8, and doc starts
// with markup (otherwise sitepush reads it as a text sitemap). encoding/xml accepts a character
// reference to a surrogate, which XML does not: such a document is not well-formed either.
func wellFormedXML(doc []byte) bool {
	if t := bytes.TrimLeft(bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf")), " \t\r\n"); len(t) == 0 || t[0] != '<' {
		return false
	}
	for _, m := range charRefPattern.FindAllSubmatch(doc, -1) {
		base, digits := 10, string(m[2])
		if len(m[1]) > 0 {
			base = 16
		}
		if r, err := strconv.ParseInt(digits, base, 32); err != nil || !utf8.ValidRune(rune(r)) {
			return false
		}
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	roots := 0
	for depth := 0; ; {
		tok, err := d.Token()
		if err == io.EOF {
			return roots == 1 && depth == 0
		}
		if err != nil {
			return false
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
}

// oracle extracts a well-formed document's entries with encoding/xml, following the rules the
// scanner implements: entries and fields by local name, in the root's prefix or none, fields as
// direct children of an entry, every non-empty <loc> (one link for a feed item), the best-ranked
// date, Atom's alternate link, RSS's permalink guid; one item for each URL of an entry.
func oracle(doc []byte) []item {
	d := xml.NewDecoder(bytes.NewReader(doc))
	var (
		items                   []item
		root, rootPrefix, entry string
		depth, entryDepth       int
		locs                    []string
		guid, lastmod           string
		rank, fieldRank         int
		field                   string
		fieldDepth              int
		text                    strings.Builder
	)
	ours := func(n xml.Name) bool { return n.Space == "" || n.Space == rootPrefix }
	for {
		tok, err := d.RawToken()
		if err != nil {
			return items
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case root == "":
				root, rootPrefix = t.Name.Local, t.Name.Space
				entry = map[string]string{"urlset": "url", "sitemapindex": "sitemap", "rss": "item", "RDF": "item", "feed": "entry"}[root]
			case entryDepth == 0:
				if t.Name.Local == entry && ours(t.Name) {
					entryDepth, locs, guid, lastmod, rank = depth, nil, "", "", 0
				}
			case field == "" && depth == entryDepth+1:
				if root == "feed" && t.Name.Local == "link" && ours(t.Name) {
					if len(locs) == 0 && (attr(t, "rel") == nil || trimOracle(*attr(t, "rel")) == "alternate") && attr(t, "href") != nil {
						if v := trimOracle(*attr(t, "href")); v != "" {
							locs = append(locs, v)
						}
					}
					continue
				}
				field, fieldRank = oracleField(root, t, ours(t.Name))
				fieldDepth = depth
				text.Reset()
			}
		case xml.CharData:
			if field != "" {
				text.Write(t)
			}
		case xml.EndElement:
			if field != "" && depth == fieldDepth {
				v := trimOracle(text.String())
				switch field {
				case "loc":
					if v != "" && (len(locs) == 0 || root == "urlset" || root == "sitemapindex") {
						locs = append(locs, v)
					}
				case "guid":
					guid = v
				case "lastmod":
					if fieldRank > rank && v != "" {
						lastmod, rank = v, fieldRank
					}
				}
				field = ""
			}
			depth--
			if entryDepth != 0 && depth < entryDepth {
				entryDepth = 0
				if len(locs) == 0 {
					locs = []string{guid}
				}
				for _, loc := range locs {
					items = append(items, item{loc, lastmod})
				}
			}
			if depth == 0 {
				return items
			}
		}
	}
}

// oracleField is fieldOf for the reference reader: "" for children that are not fields.
func oracleField(root string, t xml.StartElement, ours bool) (string, int) {
	name := t.Name.Local
	if !ours {
		if (root == "rss" || root == "RDF") && name == "date" {
			return "lastmod", 1
		}
		return "none", 0
	}
	switch {
	case (root == "urlset" || root == "sitemapindex") && name == "loc":
		return "loc", 0
	case (root == "urlset" || root == "sitemapindex") && name == "lastmod":
		return "lastmod", 2
	case (root == "rss" || root == "RDF") && name == "link":
		return "loc", 0
	case (root == "rss" || root == "RDF") && name == "guid":
		if p := attr(t, "isPermaLink"); p != nil && trimOracle(*p) == "false" {
			return "none", 0
		}
		return "guid", 0
	case (root == "rss" || root == "RDF") && name == "pubDate":
		return "lastmod", 2
	case root == "feed" && name == "updated":
		return "lastmod", 2
	case root == "feed" && name == "published":
		return "lastmod", 1
	}
	return "none", 0
}

// trimOracle trims what the scanner trims from values: XML whitespace and the Unicode spaces
// beyond ASCII, with the zero-width space and the byte order mark.
func trimOracle(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\r' || r == '\n' || r >= 0x80 && unicode.IsSpace(r) || r == 0x200b || r == 0xfeff
	})
}

func attr(t xml.StartElement, name string) *string {
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == name {
			return &a.Value
		}
	}
	return nil
}

// fuzzSeeds are the shapes real sitemaps take, and ways they go wrong.
var fuzzSeeds = []string{
	`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.example/1</loc><lastmod>2024-01-01</lastmod><changefreq>daily</changefreq><priority>0.5</priority></url></urlset>`,
	"<urlset>\n  <url>\n    <loc>https://a.example/?a=1&amp;b=2</loc>\n    <lastmod>2024-01-01T10:00:00+02:00</lastmod>\n  </url>\n</urlset>",
	`<urlset><url><loc>https://a.example/1</loc><lastmod></lastmod><lastmod>2024-02-02</lastmod></url></urlset>`,
	`<urlset><url><loc>&#32;</loc><lastmod>2024-01-01</lastmod><loc>https://a.example/2</loc></url></urlset>`,
	`<urlset><url><loc>https://a.example/1</loc><lastmod>2024</lastmod><url><loc>x</loc></url></url></urlset>`,
	`<urlset><url><loc>https://a.example/1</loc><lastmod>2024</lastmod><!-- </url> --></url><url><loc>https://a.example/2</loc></url></urlset>`,
	`<urlset><url><loc>https://a.example/1</loc><lastmod>2024</lastmod><x><![CDATA[</url>]]></x></url></urlset>`,
	`<sm:urlset xmlns:sm="s"><sm:url><sm:loc>https://a.example/1</sm:loc><sm:lastmod>2024-01-01</sm:lastmod><loc>no</loc></sm:url></sm:urlset>`,
	`<urlset xmlns:image="i"><url><image:image><image:loc>https://cdn/x.jpg</image:loc></image:image><loc>https://a.example/1</loc></url></urlset>`,
	`<sitemapindex><sitemap><loc>https://a.example/s.xml</loc><lastmod>2024-01-01</lastmod></sitemap></sitemapindex>`,
	`<rss version="2.0"><channel><item><link>https://a.example/a</link><pubDate>Mon, 02 Jan 2006 15:04:05 GMT</pubDate></item><item><guid isPermaLink="false">x</guid></item></channel></rss>`,
	`<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="self" href="x"/><link href="https://a.example/a"/><updated>2024-01-01T00:00:00Z</updated></entry></feed>`,
	`<urlset><url><loc>https://a.example/1`,
	`<!DOCTYPE html><html><body>`,
	"\ufeff<urlset><url><loc>https://a.example/1</loc></url></urlset>",
	"https://a.example/1\nhttps://a.example/2\n",
	`<urlset><url a="1>2"><loc>https://a.example/1</loc><lastmod>2024</lastmod><x y='</url>'/></url></urlset>`,
	"<urlset><url><loc>\u00a0https://a.example/1\u3000</loc><lastmod>\u20092024</lastmod></url><url><loc><![CDATA[\u2003https://a.example/2]]>&#160;</loc></url></urlset>",
	`<!DOCTYPE urlset [<!ENTITY e "x">]><urlset><url><loc>https://a.example/&e;</loc><lastmod>&e;</lastmod></url></urlset>`,
	`<urlset><url><loc>https://a.example/1</loc><lastmod>2024</lastmod><x/><loc a="1">https://a.example/2</loc><location>z</location><loc/></url></urlset>`,
	`<sm:urlset xmlns:sm="s"><sm:url><sm:loc>https://a.example/1</sm:loc><sm:lastmod>2024</sm:lastmod><sm:loc>https://a.example/2</sm:loc></sm:url></sm:urlset>`,
	`<sitemapindex><sitemap><loc>https://a.example/1.xml</loc><loc>https://a.example/2.xml</loc><lastmod>2024</lastmod></sitemap></sitemapindex>`,
}

func TestOracleAgreesOnSeeds(t *testing.T) {
	// The reference reader must itself find something on the well-formed seeds, or the fuzz
	// target's comparison would prove nothing.
	found := 0
	for _, seed := range fuzzSeeds {
		if wellFormedXML([]byte(seed)) && len(oracle([]byte(seed))) > 0 {
			found++
		}
	}
	if found < 10 {
		t.Fatalf("the reference reader found entries in %d seeds only", found)
	}
}
