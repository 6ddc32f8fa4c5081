package sitemap

import (
	"fmt"
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
