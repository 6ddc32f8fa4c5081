package changes

import (
	"math/rand/v2"
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
