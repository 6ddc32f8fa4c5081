package fingerprint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
)

// benchPage returns a page of about 60 KB shaped like a Next.js blog post: a head of preloads
// and chunk scripts, a header and footer, an article of 44 sections of headings, paragraphs,
// lists and code, and the post again as JSON in __NEXT_DATA__, as a statically generated page
// carries it.
func benchPage(b *testing.B) []byte {
	b.Helper()
	page := fixture(b, "next-pages.html")
	var post strings.Builder
	for i := range 44 {
		fmt.Fprintf(&post, `<h2 id="section-%d" class="Post_h2__k2Lx9">Section %d: what the numbers said</h2>`, i, i)
		fmt.Fprintf(&post, `<p class="Post_p__3nXq1">Build %d took <strong>%d.%d minutes</strong>, of which the dependency install was the largest part. We looked at the <a href="/blog/profiling-%d" class="Post_link__Zq81m">profile</a> and found that most packages had not changed since the previous run, yet were rebuilt from scratch every time.</p>`, i, 6+i%9, i%10, i)
		fmt.Fprintf(&post, `<ul class="Post_list__8Hs2q"><li>Cache hit rate: %d%%</li><li>Median build: %d minutes</li><li>Remote cache size: %d MB</li></ul>`, 60+i%40, 5+i%7, 100+i*13)
		if i%4 == 0 {
			fmt.Fprintf(&post, `<pre class="Code_pre__1xK2m"><code class="language-sh">pnpm turbo run build --filter=...[origin/main] --cache-dir=.turbo/%d</code></pre>`, i)
		}
	}
	content, err := json.Marshal(post.String())
	if err != nil {
		b.Fatal(err)
	}
	page = strings.Replace(page, `<div class="Post_body__8Yc3d">`, `<div class="Post_body__8Yc3d">`+post.String(), 1)
	page = strings.Replace(page, `"readingTime":4`, `"readingTime":4,"content":`+string(content), 1)
	return []byte(page)
}

// BenchmarkOf measures fingerprinting against BenchmarkRead, the cost of reading the same
// bytes: a UTF-8 page with its charset in Content-Type, one whose charset is sniffed, one in
// windows-1252 (transcoded), and one gzipped.
func BenchmarkOf(b *testing.B) {
	page := benchPage(b)
	latin, err := charmap.Windows1252.NewEncoder().Bytes(bytes.ReplaceAll(page, []byte("·"), []byte("-")))
	if err != nil {
		b.Fatal(err)
	}
	tests := []struct {
		name, contentType string
		body              []byte
	}{
		{"utf-8", "text/html; charset=utf-8", page},
		{"sniffed", "", page},
		{"windows-1252", "text/html; charset=windows-1252", latin},
		{"gzip", "text/html; charset=utf-8", gz(b, page)},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Of(bytes.NewReader(tt.body), tt.contentType); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRead is BenchmarkOf's baseline: reading the page's bytes and nothing more. The reader
// is wrapped so that io.Copy reads it through a buffer, as it reads a response body, rather than
// handing the whole slice to io.Discard at once.
func BenchmarkRead(b *testing.B) {
	page := benchPage(b)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := io.Copy(io.Discard, struct{ io.Reader }{bytes.NewReader(page)}); err != nil {
			b.Fatal(err)
		}
	}
}
