package sitemap

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPageURL(t *testing.T) {
	base, _ := url.Parse("https://a.example/sitemaps/s.xml")
	tests := []struct {
		in, want   string
		local      bool
		note, skip string
	}{
		{in: "https://a.example/p", want: "https://a.example/p"},
		{in: "HTTP://A.example/p?q=1#f", want: "HTTP://A.example/p?q=1#f"},
		{in: "http://a.example", want: "http://a.example"},
		{in: "https://a.example/CV James.pdf", want: "https://a.example/CV%20James.pdf", note: "percent-encoded"},
		{in: "https://a.example/a\tb", want: "https://a.example/a%09b", note: "percent-encoded"},
		{in: "https://a.example/a\r\nb\rc\nd", want: "https://a.example/a%0Ab%0Ac%0Ad", note: "percent-encoded"}, // XML's line ends
		{in: "https://bg.example/интерактивна-карта/", want: "https://bg.example/интерактивна-карта/"},
		{in: "https://a.example/\xff", want: "https://a.example/%FF", note: "percent-encoded"},
		// Unicode spaces, line and paragraph separators, controls and format characters inside a
		// URL are encoded as their UTF-8 bytes: raw, they break the lines of `urls` and hide in
		// what people read; letters stay as they are.
		{in: "https://a.example/a\u00a0b", want: "https://a.example/a%C2%A0b", note: "percent-encoded"},
		{in: "https://a.example/c\u2028d\u3000e", want: "https://a.example/c%E2%80%A8d%E3%80%80e", note: "percent-encoded"},
		{in: "https://a.example/e\u0085f", want: "https://a.example/e%C2%85f", note: "percent-encoded"},
		{in: "https://a.example/g\u202eh\u200bi", want: "https://a.example/g%E2%80%AEh%E2%80%8Bi", note: "percent-encoded"},
		{in: "https://a.example/caf\u00e9", want: "https://a.example/caf\u00e9"},
		{in: "/p/relative", want: "https://a.example/p/relative", note: "resolved"},
		{in: "relative", want: "https://a.example/sitemaps/relative", note: "resolved"},
		{in: "//cdn.example/x", want: "https://cdn.example/x", note: "resolved"},
		// A host name without its scheme is neither a URL nor a path: resolved, it would make up
		// https://a.example/sitemaps/www.example.com/. File names and paths stay relative.
		{in: "www.example.com/", skip: `"www.example.com/": it starts with a host name but no scheme, so it is neither a URL nor a path: write it whole, like https://www.example.com/`},
		{in: "Example.co.uk/p?q=1", skip: "starts with a host name but no scheme"},
		{in: "blog.example.org", skip: "starts with a host name but no scheme"},
		{in: "www.example.com/", local: true, skip: "starts with a host name but no scheme"},
		{in: "page.html", want: "https://a.example/sitemaps/page.html", note: "resolved"},
		{in: "index.php?id=1", want: "https://a.example/sitemaps/index.php?id=1", note: "resolved"},
		{in: "v1.2/notes", want: "https://a.example/sitemaps/v1.2/notes", note: "resolved"},
		{in: "./www.example.com/", want: "https://a.example/sitemaps/www.example.com/", note: "resolved"},
		{in: "/www.example.com/", want: "https://a.example/www.example.com/", note: "resolved"},
		{in: "/p/relative", local: true, skip: "cannot be resolved"},
		{in: "ftp://a.example/x", skip: "not an http(s) URL"},
		{in: "localhost:3000/palettes", skip: "not an http(s) URL"},
		{in: "mailto:x@a.example", skip: "not an http(s) URL"},
		{in: "https://", skip: "no host"},
		{in: "https:///path", skip: "no host"},
		{in: "https://a.example/%zz", want: "https://a.example/%zz"}, // tolerated, as browsers do
		{in: "https://a.example/%zz x", skip: "not a valid URL"},
	}
	for _, tc := range tests {
		b := base
		if tc.local {
			b = nil
		}
		got, note, skip := pageURL([]byte(tc.in), b)
		if string(got) != tc.want || !contains(note, tc.note) || !contains(skip, tc.skip) {
			t.Errorf("pageURL(%q) = %q, note %q, skip %q; want %q, note ~%q, skip ~%q", tc.in, got, note, skip, tc.want, tc.note, tc.skip)
		}
	}
}

func TestPageURLHostOfAnySuffix(t *testing.T) {
	// A host name off the Public Suffix List (.test, .internal, an intranet name) is still a host
	// when it is the sitemap's own, with or without "www.", or begins with "www.": skipped with
	// the warning a public one gets, not joined onto the sitemap's directory as a path
	// (http://shop.test/shop.test/a). Another name of no public suffix stays a path.
	const skip = "starts with a host name but no scheme, so it is neither a URL nor a path"
	tests := []struct {
		base, in, want, skip string
	}{
		{base: "http://shop.test/sitemap.xml", in: "shop.test/a", skip: `"shop.test/a": it ` + skip + `: write it whole, like http://shop.test/a`},
		{base: "http://shop.test/sitemap.xml", in: "www.shop.test/a", skip: skip},
		{base: "http://shop.test/sitemap.xml", in: "www.anything/a", skip: skip},
		{base: "http://shop.test/sitemap.xml", in: "SHOP.Test/a?q=1", skip: skip},
		{base: "http://shop.test/sitemap.xml", in: "shop.test", skip: skip},
		{base: "http://www.shop.internal/maps/s.xml", in: "shop.internal/a", skip: skip},
		{base: "https://shop.internal:8443/s.xml", in: "shop.internal/a", skip: skip},
		{base: "http://intranet/sitemap.xml", in: "intranet/a", skip: skip},
		{base: "http://intranet/sitemap.xml", in: "www.intranet/a", skip: skip},
		{base: "http://shop.test/sitemap.xml", in: "other.test/a", want: "http://shop.test/other.test/a"},
		{base: "http://shop.test/sitemap.xml", in: "shop.testing/a", want: "http://shop.test/shop.testing/a"},
		{base: "http://shop.test/maps/s.xml", in: "shop/a", want: "http://shop.test/maps/shop/a"},
		{base: "http://shop.test/maps/s.xml", in: "page.html", want: "http://shop.test/maps/page.html"},
		{base: "http://shop.test/maps/s.xml", in: "./shop.test/a", want: "http://shop.test/maps/shop.test/a"},
		{base: "http://shop.test/maps/s.xml", in: "/shop.test/a", want: "http://shop.test/shop.test/a"},
		{base: "http://shop.test/maps/s.xml", in: "http://shop.test/a", want: "http://shop.test/a"},
	}
	for _, tc := range tests {
		base, err := url.Parse(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		got, _, skipped := pageURL([]byte(tc.in), base)
		if string(got) != tc.want || !contains(skipped, tc.skip) {
			t.Errorf("pageURL(%q) in %s = %q, skip %q; want %q, skip ~%q", tc.in, tc.base, got, skipped, tc.want, tc.skip)
		}
	}
}

// contains is strings.Contains that also requires an empty s when want is empty.
func contains(s, want string) bool {
	if want == "" {
		return s == ""
	}
	return strings.Contains(s, want)
}

func TestPrintableASCII(t *testing.T) {
	for i := 0; i < 256; i++ {
		for _, n := range []int{1, 7, 8, 9, 16, 31} {
			b := []byte(strings.Repeat("a", n))
			b[n/2] = byte(i)
			want := i > ' ' && i < 0x7f
			if got := printableASCII(b); got != want {
				t.Fatalf("printableASCII with byte %#x at %d of %d = %v, want %v", i, n/2, n, got, want)
			}
		}
	}
}

func TestHTTPPrefix(t *testing.T) {
	for in, want := range map[string]int{"http://x": 7, "HTTPS://x": 8, "hTtPs://": 8, "http:/x": 0, "https:x": 0, "ftp://x": 0, "http": 0, "": 0} {
		if got := httpPrefix([]byte(in)); got != want {
			t.Errorf("httpPrefix(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestReadTrimsUnicodeSpaces(t *testing.T) {
	// Unicode spaces around a value — no-break, em, ideographic, narrow and zero-width ones, a
	// stray byte order mark — are trimmed like XML's own, inside CDATA or not, written or given
	// as references; a space inside a URL is the URL's, and percent-encoded like any.
	s := newTestSite(t)
	doc := `<urlset ` + ns + `><url><loc><![CDATA[` + "\u00a0https://a.example/nbsp\u00a0" + `]]></loc></url>` +
		"<url><loc>\u2003https://a.example/emsp\u3000</loc></url>" +
		"<url><loc>\u00a0\n https://a.example/mixed \u202f</loc><lastmod>\u00a02024-01-02\u2009</lastmod></url>" +
		"<url><loc>\ufeff\u200bhttps://a.example/bom\u205f\u2000\u200a\u1680</loc></url>" +
		"<url><loc>&#160;https://a.example/ref&#x3000;</loc></url>" +
		"<url><loc> <![CDATA[\u2028https://a.example/cdata]]>\u2029 </loc></url>" +
		"<url><loc>https://a.example/in\u00a0side</loc></url></urlset>"
	s.put("/u.xml", &testPage{body: []byte(doc)})
	s.put("/t.txt", &testPage{body: []byte("\u00a0https://a.example/text\u3000\n"), contentType: "text/plain"})
	s.put("/i.xml", &testPage{body: []byte(`<sitemapindex><sitemap><loc>` + "\u00a0" + s.url("/t.txt") + "\u2003</loc></sitemap></sitemapindex>")})
	r := read(t, fast(), s.url("/u.xml"), s.url("/i.xml"))
	want := []string{"https://a.example/nbsp", "https://a.example/emsp", "https://a.example/mixed", "https://a.example/bom",
		"https://a.example/ref", "https://a.example/cdata", "https://a.example/in%C2%A0side", "https://a.example/text"}
	if !slices.Equal(r.urls, want) {
		t.Errorf("urls = %q\nwant %q", r.urls, want)
	}
	if len(r.lastmods) > 2 && r.lastmods[2].IsZero() {
		t.Errorf("a lastmod with Unicode spaces around it was not read; warnings %q", r.warnings)
	}
	if len(r.res.Failed()) != 0 {
		t.Errorf("failed: %v", r.res.Failed())
	}
}

func TestReadEveryLocOfAnEntry(t *testing.T) {
	// An entry with several <loc> children names several pages (or sitemaps): each one that is a
	// URL is kept, with the entry's lastmod, wherever the <loc> stands among the children.
	s := newTestSite(t)
	p := func(name string) string { return "https://a.example/" + name }
	urlset := `<urlset ` + ns + ` xmlns:image="i">` +
		`<url><loc>` + p("a1") + `</loc><lastmod>2024-01-02</lastmod><changefreq>daily</changefreq><loc>` + p("a2") + `</loc><image:image><image:loc>` + p("img") + `</image:loc></image:image></url>` +
		`<url><loc>` + p("b1") + `</loc><loc>ftp://a.example/b2</loc><loc> </loc><loc>` + p("b3") + `</loc><lastmod>2024-01-03</lastmod></url>` +
		`<url><lastmod>2024-01-04</lastmod><loc>` + p("c1") + `</loc><priority>1</priority><loc><![CDATA[` + p("c2") + `]]></loc></url>` +
		`<url><loc>` + p("d1") + `</loc><lastmod>2024-01-05</lastmod></url></urlset>`
	s.put("/u.xml", &testPage{body: []byte(urlset)})
	s.put("/sm.xml", &testPage{body: []byte(`<sm:urlset xmlns:sm="` + "http://www.sitemaps.org/schemas/sitemap/0.9" + `"><sm:url><sm:loc>` + p("e1") +
		`</sm:loc><sm:lastmod>2024-01-06</sm:lastmod><sm:loc>` + p("e2") + `</sm:loc></sm:url></sm:urlset>`)})
	for _, c := range []string{"a", "b", "c"} {
		s.put("/child-"+c+".xml", &testPage{body: urlsetOf(p("child-" + c))})
	}
	s.put("/idx.xml", &testPage{body: []byte(`<sitemapindex ` + ns + `><sitemap><loc>` + s.url("/child-a.xml") + `</loc><loc>` + s.url("/child-b.xml") +
		`</loc><lastmod>2026-01-01</lastmod></sitemap><sitemap><loc>` + s.url("/child-c.xml") + `</loc></sitemap></sitemapindex>`)})
	r := read(t, fast(), s.url("/u.xml"), s.url("/sm.xml"), s.url("/idx.xml"))
	want := []string{p("a1"), p("a2"), p("b1"), p("b3"), p("c1"), p("c2"), p("d1"), p("e1"), p("e2"), p("child-a"), p("child-b"), p("child-c")}
	if !slices.Equal(r.urls, want) {
		t.Fatalf("urls = %q\nwant %q", r.urls, want)
	}
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	wantLastmods := []time.Time{day(2), day(2), day(3), day(3), day(4), day(4), day(5), day(6), day(6), day(2), day(2), day(2)}
	if !slices.EqualFunc(r.lastmods, wantLastmods, time.Time.Equal) {
		t.Errorf("lastmods = %v\nwant %v", r.lastmods, wantLastmods)
	}
	if !r.warned(`"ftp://a.example/b2": not an http(s) URL`) {
		t.Errorf("warnings %q", r.warnings)
	}
	for _, sm := range r.res.Sitemaps {
		if strings.HasSuffix(sm.URL, "/idx.xml") && sm.Entries != 3 {
			t.Errorf("the index counts %d entries, want 3", sm.Entries)
		}
	}
}
