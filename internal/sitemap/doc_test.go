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
	for _, n := range []int{49, batchSize + 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := newTestSite(t)
			var urls []string
			for i := range n + 1 {
				urls = append(urls, fmt.Sprintf("https://a.example/p/%d", i))
			}
			body := string(urlsetOf(urls...))
			body = body[:strings.LastIndex(body, "</url>")] // the last entry is cut off
			s.put("/cut.xml", &testPage{body: []byte(body)})
			r := read(t, fast(), s.url("/cut.xml"))
			want := fmt.Sprintf("ends before its closing tag, as if cut off; the %d entries read whole are kept", n)
			if len(r.urls) != n || !r.warned(want) {
				t.Errorf("%d URLs, warnings %q; want %d and %q", len(r.urls), r.warnings, n, want)
			}
		})
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
