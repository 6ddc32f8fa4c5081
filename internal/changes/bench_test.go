package changes

import (
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkLastmods judges a sitemap of 50,000 URLs, the most one may hold, whose lastmods
// are all different and come in no order: the costliest sort. Bytes are those the lastmods
// take while kept, 8 a URL.
func BenchmarkLastmods(b *testing.B) {
	const n = 50_000
	rnd := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	lastmods := make([]time.Time, n)
	for i := range lastmods {
		lastmods[i] = start.Add(time.Duration(rnd.Int64N(int64(6 * 365 * 24 * time.Hour))))
	}
	b.SetBytes(8 * n)
	b.ReportAllocs()
	for b.Loop() {
		var l Lastmods
		for _, lm := range lastmods {
			l.Add(lm)
		}
		if l.Verdict().URLs != n {
			b.Fatal("lost URLs")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/URL")
}

// BenchmarkDirOpen reads a 20 KB page whose file is the second one looked for (/a/c is
// a/c/index.html, after a/c.html), as Hugo and Astro build pages: the cost of changes.dir
// against a fetch.
func BenchmarkDirOpen(b *testing.B) {
	dir := b.TempDir()
	page := strings.Repeat("<p>words of a page</p>\n", 20<<10/24)
	if err := os.MkdirAll(filepath.Join(dir, "a", "c"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "c", "index.html"), []byte(page), 0o644); err != nil {
		b.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	u := &url.URL{Scheme: "https", Host: "example.com", Path: "/a/c"}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		f, _, _, err := d.Open(u)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
