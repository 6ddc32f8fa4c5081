package sitemap

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// item is an entry as the document parser hands it over: raw, before URL checks, one item for
// each of its URLs.
type item struct{ loc, lastmod string }

// skippedMark starts a line of a text sitemap that the parser skipped, as not a URL.
const skippedMark = "(skipped) "

// undecodedMark starts an item's field that holds a reference the parser did not decode.
const undecodedMark = "(undecoded) "

// parseDoc runs a document through body and the XML or text parser, on the fast path or (slow)
// token by token. With oneByte, input arrives one byte per Read, so every token is split across
// buffer refills.
func parseDoc(t testing.TB, doc string, slow, oneByte bool) (Kind, []item, bool, error) {
	t.Helper()
	var in io.Reader = strings.NewReader(doc)
	if oneByte {
		in = iotest.OneByteReader(in)
	}
	r, isXML, err := body(in, 1<<30)
	if err != nil {
		return KindUnknown, nil, false, err
	}
	var items []item
	if !isXML {
		err := readText(r, func(loc []byte) error {
			items = append(items, item{loc: string(loc)})
			return nil
		}, func(line []byte) {
			items = append(items, item{loc: skippedMark + string(line)})
		})
		return KindText, items, false, err
	}
	d := &xmlDoc{lx: newLexer(r), slow: slow}
	d.emit = func(e *entry) error {
		lastmod := string(e.lastmod)
		if e.lastmodUndecoded {
			lastmod = undecodedMark + lastmod
		}
		if len(e.locs) == 0 {
			items = append(items, item{"", lastmod})
		}
		for i, loc := range e.locs {
			if e.undecoded[i] {
				items = append(items, item{undecodedMark + string(loc), lastmod})
			} else {
				items = append(items, item{string(loc), lastmod})
			}
		}
		return nil
	}
	err = d.run()
	return d.kind, items, d.truncated, err
}

const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

func TestParseDocuments(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		kind      Kind
		want      []item
		truncated bool
	}{
		{"plain urlset", `<?xml version="1.0" encoding="UTF-8"?><urlset ` + ns + `><url><loc>https://a.example/1</loc><lastmod>2024-01-02</lastmod></url><url><loc>https://a.example/2</loc></url></urlset>`,
			KindURLSet, []item{{"https://a.example/1", "2024-01-02"}, {"https://a.example/2", ""}}, false},
		{"no namespace, pretty printed", "<urlset>\n\t<url>\n\t\t<loc>\n\t\t\thttps://a.example/1\n\t\t</loc>\n\t\t<lastmod> 2024-01-02 </lastmod>\n\t</url>\n</urlset>\n",
			KindURLSet, []item{{"https://a.example/1", "2024-01-02"}}, false},
		{"prefixed sitemap namespace", `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://a.example/p</sm:loc><sm:lastmod>2024-05</sm:lastmod></sm:url></sm:urlset>`,
			KindURLSet, []item{{"https://a.example/p", "2024-05"}}, false},
		{"extensions are not pages", `<urlset ` + ns + ` xmlns:image="i" xmlns:xhtml="x" xmlns:video="v" xmlns:news="n"><url><image:image><image:loc>https://cdn.example/i.jpg</image:loc></image:image><xhtml:link rel="alternate" hreflang="de" href="https://a.example/de/p"/><loc>https://a.example/p</loc><video:video><video:content_loc>https://cdn.example/v.mp4</video:content_loc><video:player_loc>https://a.example/player</video:player_loc></video:video><news:news><news:publication><news:name>N</news:name></news:publication></news:news></url></urlset>`,
			KindURLSet, []item{{"https://a.example/p", ""}}, false},
		{"a loc nested deeper is not the entry's", `<urlset><url><loc>https://a.example/1</loc><lastmod>2024-01-01</lastmod><extra><loc>https://a.example/no</loc></extra></url></urlset>`,
			KindURLSet, []item{{"https://a.example/1", "2024-01-01"}}, false},
		{"CDATA and entities", `<urlset><url><loc><![CDATA[https://a.example/?a=1&b=2]]></loc></url><url><loc>https://a.example/?a=1&amp;b=2&amp;amp;c</loc></url><url><loc>https://a.example/&#x41;&#66;</loc></url></urlset>`,
			KindURLSet, []item{{"https://a.example/?a=1&b=2", ""}, {"https://a.example/?a=1&b=2&amp;c", ""}, {"https://a.example/AB", ""}}, false},
		{"a stray ampersand is kept", `<urlset><url><loc>https://a.example/?a=1&b=2</loc><lastmod>2024-01-01</lastmod></url></urlset>`,
			KindURLSet, []item{{"https://a.example/?a=1&b=2", "2024-01-01"}}, false},
		{"entities other than XML's are never expanded", `<!DOCTYPE urlset [<!ENTITY d "2024">]><urlset><url><loc>https://a.example/?a=1&b=2&nbsp;</loc><lastmod>&d;-01-01</lastmod></url>` +
			`<url><loc>https://a.example/1</loc><lastmod>2024-01-01&d;</lastmod><loc> &#xa0;</loc></url><url><loc>https://a.example/<![CDATA[&d;]]>&#0;</loc></url></urlset>`,
			KindURLSet, []item{{undecodedMark + "https://a.example/?a=1&b=2&nbsp;", undecodedMark + "&d;-01-01"}, {"https://a.example/1", undecodedMark + "2024-01-01&d;"},
				{undecodedMark + "https://a.example/&d;&#0;", ""}}, false},
		{"comments, PIs and a doctype anywhere", `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY x "y>">]><?xml-stylesheet type="text/xsl" href="/s.xsl"?><!-- <url><loc>https://a.example/no</loc></url> --><urlset><url><!-- c --><loc>https://a.example/1<!-- </loc> --></loc><?pi x?></url></urlset>`,
			KindURLSet, []item{{"https://a.example/1", ""}}, false},
		{"lastmod before loc, other children between", `<urlset><url><lastmod>2024-03-04</lastmod><changefreq>daily</changefreq><priority>0.5</priority><loc>https://a.example/1</loc></url></urlset>`,
			KindURLSet, []item{{"https://a.example/1", "2024-03-04"}}, false},
		{"every non-empty loc counts", `<urlset><url><loc> </loc><loc>https://a.example/2</loc><lastmod>2024-01-01</lastmod><loc>https://a.example/3</loc></url></urlset>`,
			KindURLSet, []item{{"https://a.example/2", "2024-01-01"}, {"https://a.example/3", "2024-01-01"}}, false},
		{"a feed item has one link", `<rss><channel><item><link>https://a.example/1</link><link>https://a.example/2</link></item></channel></rss>`,
			KindRSS, []item{{"https://a.example/1", ""}}, false},
		{"an entry without loc is emitted empty", `<urlset><url><lastmod>2024-01-01</lastmod></url></urlset>`,
			KindURLSet, []item{{"", "2024-01-01"}}, false},
		{"attribute holding '>' and quotes", `<urlset a="x>y" b='"'><url data-x="</url>"><loc>https://a.example/1</loc><lastmod>2024-01-01</lastmod><x y="</url>"/></url></urlset>`,
			KindURLSet, []item{{"https://a.example/1", "2024-01-01"}}, false},
		{"a bare < in text is skipped", `<urlset><url><loc>https://a.example/1</loc><lastmod>2024-01-01</lastmod><priority>1 < 2</priority></url></urlset>`,
			KindURLSet, []item{{"https://a.example/1", "2024-01-01"}}, false},
		{"truncated after two whole entries", `<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc></url><url><loc>https://a.example/3`,
			KindURLSet, []item{{"https://a.example/1", ""}, {"https://a.example/2", ""}}, true},
		// A closed <loc> is whole: its entry is kept though the entry was cut, in a urlset as in an
		// index, with its lastmod only when that closed too.
		{"truncated inside an entry's lastmod", `<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc><lastmod>2024-0`,
			KindURLSet, []item{{"https://a.example/1", ""}, {"https://a.example/2", ""}}, true},
		{"truncated after an entry's loc", `<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc>`,
			KindURLSet, []item{{"https://a.example/1", ""}, {"https://a.example/2", ""}}, true},
		{"truncated in an entry's lastmod tag", `<urlset><url><loc>https://a.example/1</loc><lastm`,
			KindURLSet, []item{{"https://a.example/1", ""}}, true},
		{"truncated after an entry's lastmod", `<urlset><url><loc>https://a.example/1</loc><lastmod>2024-01-02</lastmod>` + "\n",
			KindURLSet, []item{{"https://a.example/1", "2024-01-02"}}, true},
		{"truncated after a lastmod and a loc", `<sm:urlset xmlns:sm="s"><sm:url><sm:lastmod>2024-01-02</sm:lastmod><sm:loc>https://a.example/1</sm:loc><sm:changefreq>dai`,
			KindURLSet, []item{{"https://a.example/1", "2024-01-02"}}, true},
		{"truncated inside an extension after the loc", `<urlset xmlns:image="i"><url><loc>https://a.example/1</loc><lastmod>2024-01-02</lastmod><image:image><image:loc>https://cdn.example/i.jpg</image:loc>`,
			KindURLSet, []item{{"https://a.example/1", "2024-01-02"}}, true},
		{"truncated inside an entry's second loc", `<urlset><url><loc>https://a.example/1</loc><loc>https://a.example/2`,
			KindURLSet, []item{{"https://a.example/1", ""}}, true},
		{"an Atom entry truncated after <published>", `<feed><entry><link href="https://a.example/a"/><published>2024-01-01</published>`,
			KindAtom, []item{{"https://a.example/a", ""}}, true},
		{"an Atom entry truncated after <updated>", `<feed><entry><link href="https://a.example/a"/><updated>2024-02-01</updated><publ`,
			KindAtom, []item{{"https://a.example/a", "2024-02-01"}}, true},
		{"an RSS item truncated after its guid", `<rss><channel><item><guid>https://a.example/g</guid><li`,
			KindRSS, nil, true},
		{"an RSS item truncated after its link and pubDate", `<rss><channel><item><link>https://a.example/a</link><pubDate>Mon, 02 Jan 2006 15:04:05 GMT</pubDate>`,
			KindRSS, []item{{"https://a.example/a", "Mon, 02 Jan 2006 15:04:05 GMT"}}, true},
		{"an index truncated after an entry's loc", `<sitemapindex><sitemap><loc>https://a.example/1.xml</loc></sitemap><sitemap><loc>https://a.example/2.xml</loc><lastmod>2024-0`,
			KindIndex, []item{{"https://a.example/1.xml", ""}, {"https://a.example/2.xml", ""}}, true},
		{"an index truncated in an entry's tag", `<sitemapindex><sitemap><lastmod>2024-01-01</lastmod><loc>https://a.example/1.xml</loc><lastm`,
			KindIndex, []item{{"https://a.example/1.xml", "2024-01-01"}}, true},
		{"an index truncated inside a loc", `<sitemapindex><sitemap><loc>https://a.example/1.xml</loc></sitemap><sitemap><loc>https://a.example/2.x`,
			KindIndex, []item{{"https://a.example/1.xml", ""}}, true},
		{"self-closing root", `<urlset/>`, KindURLSet, nil, false},
		{"sitemap index", `<sitemapindex ` + ns + `><sitemap><loc>https://a.example/s1.xml</loc><lastmod>2024-01-01T10:00:00Z</lastmod></sitemap><sitemap><loc>https://a.example/s2.xml.gz</loc></sitemap></sitemapindex>`,
			KindIndex, []item{{"https://a.example/s1.xml", "2024-01-01T10:00:00Z"}, {"https://a.example/s2.xml.gz", ""}}, false},
		{"RSS 2.0", `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>t</title><link>https://a.example/</link><atom:link href="https://a.example/feed" rel="self"/><item><title>a</title><link>https://a.example/a</link><pubDate>Mon, 02 Jan 2006 15:04:05 GMT</pubDate><dc:date>2001-01-01</dc:date></item><item><guid>https://a.example/b</guid><dc:date>2024-02-02</dc:date></item><item><guid isPermaLink="false">tag:x</guid></item></channel></rss>`,
			KindRSS, []item{{"https://a.example/a", "Mon, 02 Jan 2006 15:04:05 GMT"}, {"https://a.example/b", "2024-02-02"}, {"", ""}}, false},
		{"RSS 1.0 (RDF)", `<rdf:RDF xmlns:rdf="r" xmlns="http://purl.org/rss/1.0/"><channel><link>https://a.example/</link></channel><item rdf:about="https://a.example/a"><link>https://a.example/a</link></item></rdf:RDF>`,
			KindRSS, []item{{"https://a.example/a", ""}}, false},
		{"Atom", `<feed xmlns="http://www.w3.org/2005/Atom"><link href="https://a.example/"/><entry><link rel="edit" href="https://a.example/edit"/><link href="https://a.example/a"/><link rel="alternate" href="https://a.example/other"/><published>2024-01-01T00:00:00Z</published><updated>2024-02-01T00:00:00Z</updated></entry><entry><link rel="alternate" href="https://a.example/b&amp;c"></link><published>2023-01-01</published></entry><entry><link href="https://a.example/&x;"/></entry></feed>`,
			KindAtom, []item{{"https://a.example/a", "2024-02-01T00:00:00Z"}, {"https://a.example/b&c", "2023-01-01"}, {undecodedMark + "https://a.example/&x;", ""}}, false},
		{"leading whitespace and a BOM", "\ufeff  \n<?xml version='1.0'?>\n<urlset><url><loc>https://a.example/1</loc></url></urlset>",
			KindURLSet, []item{{"https://a.example/1", ""}}, false},
		{"text sitemap", "https://a.example/1\r\n\r\n  https://a.example/2  \nnot a url\n",
			KindText, []item{{"https://a.example/1", ""}, {"https://a.example/2", ""}, {skippedMark + "not a url", ""}}, false},
		{"text sitemap whose first line is not a URL", "www.example.com/catalog?item=1\nhttps://a.example/1\nhttps://a.example/2\n",
			KindText, []item{{skippedMark + "www.example.com/catalog?item=1", ""}, {"https://a.example/1", ""}, {"https://a.example/2", ""}}, false},
		{"text sitemap with its URL last", "not a url\n\nnor this\nhttps://a.example/1",
			KindText, []item{{skippedMark + "not a url", ""}, {skippedMark + "nor this", ""}, {"https://a.example/1", ""}}, false},
	}
	for _, tc := range tests {
		for _, mode := range []struct {
			name          string
			slow, oneByte bool
		}{{"fast", false, false}, {"slow", true, false}, {"fast/one byte a read", false, true}} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				kind, got, truncated, err := parseDoc(t, tc.doc, mode.slow, mode.oneByte)
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				if kind != tc.kind || truncated != tc.truncated || !slices.Equal(got, tc.want) {
					t.Errorf("got %v %v truncated=%v\nwant %v %v truncated=%v", kind, got, truncated, tc.kind, tc.want, tc.truncated)
				}
			})
		}
	}
}

func TestParseRefusesWhatIsNotASitemap(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"HTML page", "<!DOCTYPE html>\n<html><head><title>Oops</title></head><body>x</body></html>", "got an HTML page"},
		{"HTML without doctype", "<HTML><body>", "got an HTML page"},
		{"other XML", `<?xml version="1.0"?><project><name>x</name></project>`, "the root element is <project>"},
		{"JSON", `{"error": "not found"}`, "neither XML nor a list of URLs: it looks like JSON"},
		{"a script", "export default function handler(req, res) {\n  res.send(`<urlset>`)\n}", "neither XML nor a list of URLs: it is plain text"},
		{"binary", "\x89PNG\r\n\x1a\n\x00\x00", "neither XML nor a list of URLs: it looks like binary data"},
		{"HTML after junk", "\x0c<!DOCTYPE html><html>", "neither XML nor a list of URLs: it looks like an HTML page"},
		{"one long line", strings.Repeat("x", 100<<10), "neither XML nor a list of URLs: it is plain text"},
		{"empty", "", "the body is empty"},
		{"whitespace", " \n\t ", "the body is empty"},
		{"only a prolog", `<?xml version="1.0"?><!-- nothing -->`, "no root element"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := parseDoc(t, tc.doc, false, false)
			if !errors.Is(err, ErrNotSitemap) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrNotSitemap mentioning %q", err, tc.want)
			}
		})
	}
}

func TestParseLongValueFails(t *testing.T) {
	doc := "<urlset><url><loc>https://a.example/" + strings.Repeat("x", lexMaxToken) + "</loc></url></urlset>"
	_, _, _, err := parseDoc(t, doc, false, false)
	if !errors.Is(err, errTokenTooLong) {
		t.Fatalf("err = %v, want errTokenTooLong", err)
	}
}

func TestParseSkipsHugeUnwantedContent(t *testing.T) {
	// Text and comments that are not wanted are skipped without being held: far beyond the
	// token limit, they must not fail the document.
	big := strings.Repeat("y", 3*lexMaxToken)
	doc := "<urlset><!--" + big + "--><url><loc>https://a.example/1</loc><x>" + big + "</x></url></urlset>"
	_, got, _, err := parseDoc(t, doc, false, false)
	if err != nil || !slices.Equal(got, []item{{"https://a.example/1", ""}}) {
		t.Fatalf("got %v, %v", got, err)
	}
}
