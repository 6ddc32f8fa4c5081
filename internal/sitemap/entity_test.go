package sitemap

import (
	"slices"
	"strings"
	"testing"
)

func TestAppendUnescaped(t *testing.T) {
	tests := []struct {
		in, want  string
		undecoded bool
	}{
		{"plain", "plain", false},
		{"a&amp;b", "a&b", false},
		{"&lt;&gt;&quot;&apos;&amp;", `<>"'&`, false},
		{"&amp;amp;", "&amp;", false}, // decoded exactly once
		{"&#65;&#x42;&#X43;&#x6a;", "ABCj", false},
		{"&#x10FFFF;", "\U0010FFFF", false},
		{"&#0000000000065;", "A", false},
		{"&#1114112;", "&#1114112;", true}, // beyond Unicode: no character
		{"&#99999999999999999999;", "&#99999999999999999999;", true},
		{"&#0;", "&#0;", true},
		{"&#xD800;", "&#xD800;", true},                    // a surrogate is no character
		{"&#;&#x;&#12a;&#x;", "&#;&#x;&#12a;&#x;", false}, // no references: stray '&'s
		{"?a=1&b=2", "?a=1&b=2", false},                   // a stray '&' is kept
		{"?a=1&b=2;c", "?a=1&b=2;c", false},
		{"&nbsp;", "&nbsp;", true}, // HTML's, not XML's
		{"x&copy;y&amp;", "x&copy;y&", true},
		{"&ent;", "&ent;", true},
		{"&a.b-c_1:d;", "&a.b-c_1:d;", true},
		{"&café;", "&café;", true},
		{"&1x;", "&1x;", false}, // a name does not start with a digit
		{"&", "&", false},
		{"x&", "x&", false},
		{"&amp", "&amp", false},
		{"&&&;", "&&&;", false},
		{"&verylongnamethatisnotanentityofxml;", "&verylongnamethatisnotanentityofxml;", true},
	}
	for _, tc := range tests {
		got, ok := appendUnescaped(nil, []byte(tc.in))
		if string(got) != tc.want || ok == tc.undecoded {
			t.Errorf("appendUnescaped(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, !tc.undecoded)
		}
	}
}

func TestTrimSpace(t *testing.T) {
	tests := map[string]string{
		"": "", " \t\r\n": "", "\n x y \t": "x y", "x": "x",
		"\u00a0x\u00a0": "x", "\u00a0 \u2000\nx\u3000\t\u202f": "x", "\ufeff\u200bx\u205f\u2028": "x",
		"x\u00a0y": "x\u00a0y", "\u00a0": "", "\u00a0\u00a0 ": "",
		"éx\u00e9": "éx\u00e9", "\u200dx\u00ad": "\u200dx\u00ad", // joiners and soft hyphens are not spaces
		"x\xc2": "x\xc2", "\xa0x": "\xa0x", // broken UTF-8 is left to the URL rules
	}
	for in, want := range tests {
		if got := string(trimSpace([]byte(in))); got != want {
			t.Errorf("trimSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadNeverExpandsEntities(t *testing.T) {
	// An entity that XML does not predefine — declared in a DOCTYPE, internally or externally, or
	// declared nowhere — is never expanded, and a URL that holds one is never delivered: it
	// would be submitted to every engine as written.
	s := newTestSite(t)
	doc := `<?xml version="1.0"?>` + "\n" + `<!DOCTYPE urlset [<!ENTITY pth "page-from-entity"> <!ENTITY ext SYSTEM "file:///etc/hostname">]>` +
		`<urlset ` + ns + `><url><loc>https://a.example/&ent;</loc></url>` +
		`<url><loc>https://a.example/&pth;</loc><lastmod>2024-01-01</lastmod></url>` +
		`<url><loc><![CDATA[https://a.example/x/]]>&ext;</loc></url>` +
		`<url><loc>https://a.example/?a=1&amp;b=2&nbsp;</loc></url>` +
		`<url><loc>https://a.example/&#0;</loc></url>` +
		`<url><loc>https://a.example/&averylongnamethatisstillanentity;</loc></url>` +
		`<url><loc>https://a.example/ok?a=1&b=2&amp;c=3&#x41;</loc></url>` +
		`<url><loc>https://a.example/cdata</loc></url>` +
		`<url><loc><![CDATA[https://a.example/literal&ent;]]></loc></url>` +
		`<url><loc>https://a.example/dated</loc><lastmod>2024-01-01&ent;</lastmod></url></urlset>`
	s.put("/m.xml", &testPage{body: []byte(doc)})
	s.put("/idx.xml", &testPage{body: []byte(`<sitemapindex ` + ns + `><sitemap><loc>` + s.url("/&ent;.xml") + `</loc></sitemap>` +
		`<sitemap><loc>` + s.url("/m.xml") + `</loc></sitemap></sitemapindex>`)})
	r := read(t, fast(), s.url("/idx.xml"))
	for _, u := range r.urls {
		if strings.ContainsAny(u, "&;") && u != "https://a.example/ok?a=1&b=2&c=3A" && u != "https://a.example/literal&ent;" ||
			strings.Contains(u, "page-from-entity") {
			t.Errorf("delivered %q", u)
		}
	}
	for _, want := range []string{"https://a.example/ok?a=1&b=2&c=3A", "https://a.example/literal&ent;", "https://a.example/dated", "https://a.example/cdata"} {
		if !slices.Contains(r.urls, want) {
			t.Errorf("%s not delivered; got %q", want, r.urls)
		}
	}
	if i := slices.Index(r.urls, "https://a.example/dated"); i >= 0 && !r.lastmods[i].IsZero() {
		t.Errorf("a lastmod holding an entity was read as %v", r.lastmods[i])
	}
	if len(r.urls) != 4 {
		t.Errorf("%d URLs delivered, want 4: %q", len(r.urls), r.urls)
	}
	if s.hitsOf("/&ent;.xml") != 0 || len(r.res.Failed()) != 0 {
		t.Errorf("the child holding an entity was fetched %d times; failed %v", s.hitsOf("/&ent;.xml"), r.res.Failed())
	}
	for _, w := range []string{`skipped "https://a.example/&ent;": `, `skipped "https://a.example/&pth;": `, `skipped "https://a.example/x/&ext;": `,
		`skipped sitemap "` + s.url("/&ent;.xml") + `": `, `https://a.example/dated: lastmod "2024-01-01&ent;"`, "never expand"} {
		if !r.warned(w) {
			t.Errorf("no warning %q in %q", w, r.warnings)
		}
	}
}
