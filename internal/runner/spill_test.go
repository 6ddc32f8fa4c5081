package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/sitemap"
)

// readTestBaseline writes a sitemap file of the given URLs, each with lastmod when it is not
// empty, and reads it into a Baseline.
func readTestBaseline(t testing.TB, urls []string, lastmod string) *Baseline {
	t.Helper()
	var b strings.Builder
	b.WriteString("<urlset>")
	for _, u := range urls {
		fmt.Fprintf(&b, "<url><loc>%s</loc>", u)
		if lastmod != "" {
			fmt.Fprintf(&b, "<lastmod>%s</lastmod>", lastmod)
		}
		b.WriteString("</url>")
	}
	b.WriteString("</urlset>")
	path := filepath.Join(t.TempDir(), "sitemap.xml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := sitemap.Defaults()
	opt.Repeats = true
	base, err := ReadBaseline(context.Background(), sitemap.NewReader(opt), []string{path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { base.Close() })
	return base
}

// TestBaselineHoldsNoURLs: what a Baseline holds in memory of a page is its hash and lastmod,
// 16 bytes without a pointer — no URL string, which would make a baseline of millions of URLs
// take gigabytes; the URLs are read back from its file, in the order listed, a repeat counted once.
func TestBaselineHoldsNoURLs(t *testing.T) {
	page := reflect.TypeFor[basePage]()
	for i := range page.NumField() {
		if k := page.Field(i).Type.Kind(); k != reflect.Int64 {
			t.Errorf("basePage.%s is a %s; want only int64s (hash and lastmod)", page.Field(i).Name, k)
		}
	}
	if page.Size() != 16 {
		t.Errorf("basePage takes %d bytes; want 16", page.Size())
	}
	listed := []string{"https://a.example/b", "https://A.example/a", "https://a.example/c", "https://a.example/b"}
	base := readTestBaseline(t, listed, "2026-01-01")
	var read []string
	if err := base.eachURL(func(h int64, u []byte) error {
		if URLHash(u) != h {
			t.Errorf("%s read back with another URL's hash", u)
		}
		read = append(read, string(u))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"https://a.example/b", "https://a.example/a", "https://a.example/c", "https://a.example/b"}
	if !slices.Equal(read, want) || base.Len() != 3 {
		t.Errorf("read back %v of %d pages; want %v of 3", read, base.Len(), want)
	}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if !base.covers(URLHash([]byte("https://a.example/a")), day) || base.covers(URLHash([]byte("https://a.example/a")), day.Add(time.Microsecond)) {
		t.Error("covers: want the same lastmod covered, a later one not")
	}
}

// TestDiffSortsInBoundedMemory: with room for a few changes at a time, Diff sorts each kind
// through chunks written to a temporary file and merged, and gives every change once, in order.
func TestDiffSortsInBoundedMemory(t *testing.T) {
	defer func(b int) { sortBudget = b }(sortBudget)
	sortBudget = 2 << 10
	var old, now []string
	for i := range 3000 {
		u := fmt.Sprintf("https://a.example/p/%d", i)
		if i%3 != 0 {
			old = append(old, u)
		}
		if i%3 != 1 {
			now = append(now, u)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(old), func(i, j int) { old[i], old[j] = old[j], old[i] })
	r.Shuffle(len(now), func(i, j int) { now[i], now[j] = now[j], now[i] })
	before, after := readTestBaseline(t, old, "2026-01-01"), readTestBaseline(t, append(now, now[0]), "2026-02-01")
	var got []string
	site, err := Diff(before, after, func(c Change) error {
		got = append(got, c.Kind+" "+c.URL+" "+c.Lastmod.Format(time.DateOnly))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want, changed, removed []string
	for i := range 3000 {
		u := fmt.Sprintf("https://a.example/p/%d", i)
		switch i % 3 {
		case 0:
			want = append(want, "new "+u+" 2026-02-01")
		case 1:
			removed = append(removed, "removed "+u+" 2026-01-01")
		case 2:
			changed = append(changed, "changed "+u+" 2026-02-01")
		}
	}
	slices.Sort(want)
	slices.Sort(changed)
	slices.Sort(removed)
	want = append(append(want, changed...), removed...)
	if !slices.Equal(got, want) || site.Host != "a.example" || site.Foreign != 0 {
		t.Errorf("Diff gave %d changes, %+v; want %d in order", len(got), site, len(want))
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("first difference at %d: %s, want %s", i, got[i], want[i])
			}
		}
	}
}

// BenchmarkReadBaseline reads a baseline of 200,000 URLs and reports the heap it holds, per URL,
// once read (heap-B/url): 16 bytes a page and the slack of the slice's growth; the URLs are on disk.
func BenchmarkReadBaseline(b *testing.B) {
	urls := make([]string, 200_000)
	for i := range urls {
		urls[i] = fmt.Sprintf("https://www.example.com/section-%d/a-page-of-the-site-%d", i%100, i)
	}
	var held uint64
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		base := readTestBaseline(b, urls, "2026-01-01")
		runtime.GC()
		runtime.ReadMemStats(&m1)
		held = m1.HeapAlloc - m0.HeapAlloc
		runtime.KeepAlive(base)
		base.Close()
	}
	b.ReportMetric(float64(held)/float64(len(urls)), "heap-B/url")
}
