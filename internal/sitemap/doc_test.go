package sitemap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadTruncatedCountsWhatIsKept(t *testing.T) {
	// Every entry whose <loc> closed is kept, the one the end cut too; its lastmod only when that
	// closed as well.
	const undated = ", the last one, cut inside its entry, without a lastmod"
	tests := []struct {
		name    string
		cut     func(body string) string
		whole   bool   // the last URL is kept
		dated   bool   // with its lastmod
		warning string // after the count
	}{
		{"before the last </url>", func(b string) string { return b[:strings.LastIndex(b, "</url>")] }, true, true, ""},
		{"inside the last <lastmod>", func(b string) string { return b[:strings.LastIndex(b, "</lastmod>")-3] }, true, false, undated},
		{"after the last </loc>", func(b string) string { return b[:strings.LastIndex(b, "</loc>")+len("</loc>")] }, true, false, undated},
		{"inside the last <loc>", func(b string) string { return b[:strings.LastIndex(b, "</loc>")] }, false, false, ""},
	}
	for _, tc := range tests {
		for _, n := range []int{0, 49, batchSize + 3} {
			t.Run(fmt.Sprint(tc.name, "/", n), func(t *testing.T) {
				s := newTestSite(t)
				var urls []string
				for i := range n + 1 {
					urls = append(urls, fmt.Sprintf("https://a.example/p/%d", i))
				}
				s.put("/cut.xml", &testPage{body: []byte(tc.cut(string(urlsetOf(urls...))))})
				r := read(t, fast(), s.url("/cut.xml"))
				kept := n
				if tc.whole {
					kept++
				}
				want := fmt.Sprintf("ends before its closing tag, as if cut off; the %d entries whose URL arrived whole are kept%s", kept, tc.warning)
				if kept == 1 {
					want = "ends before its closing tag, as if cut off; the 1 entry whose URL arrived whole is kept" + tc.warning
				}
				if len(r.urls) != kept || !r.warned(want) {
					t.Fatalf("%d URLs, warnings %q; want %d and %q", len(r.urls), r.warnings, kept, want)
				}
				if tc.whole && r.lastmods[kept-1].IsZero() == tc.dated {
					t.Errorf("the cut entry's lastmod is %v; want it only when it closed (%v)", r.lastmods[kept-1], tc.dated)
				}
			})
		}
	}
}

func TestReadIndexCutAfterALocFollowsIt(t *testing.T) {
	s := newTestSite(t)
	s.put("/a.xml", &testPage{body: urlsetOf(s.url("/p/a"))})
	s.put("/b.xml", &testPage{body: urlsetOf(s.url("/p/b"))})
	body := string(indexOf(s.url("/a.xml"), s.url("/b.xml")))
	body = body[:strings.LastIndex(body, "</loc>")+len("</loc>")] + "<lastmod>2026-0" // cut inside the second entry
	s.put("/cut-index.xml", &testPage{body: []byte(body)})
	r := read(t, fast(), s.url("/cut-index.xml"))
	want := "ends before its closing tag, as if cut off; the 2 sitemaps whose <loc> arrived whole are read"
	if len(r.urls) != 2 || !r.warned(want) {
		t.Errorf("urls %v, warnings %q; want both children's pages and %q", r.urls, r.warnings, want)
	}
}

func TestReadAllocatesPerReadNotPerURL(t *testing.T) {
	// The common path — ASCII URLs with a lastmod — allocates nothing per URL: a read's
	// allocations are its buffers, whatever the sitemap's size.
	dir := t.TempDir()
	var urls []string
	for i := range 4000 {
		urls = append(urls, fmt.Sprintf("https://a.example/p/%d?a=1&amp;b=2", i))
	}
	path := filepath.Join(dir, "s.xml")
	if err := os.WriteFile(path, urlsetOf(urls...), 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewReader(Defaults())
	n := 0
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := r.Read(context.Background(), []string{path}, func(Entry) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
	})
	if n != 4*len(urls) || allocs > 400 {
		t.Errorf("%d URLs read with %.0f allocations; want under 400 for %d URLs", n, allocs, len(urls))
	}
}
