package changes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// same returns n lastmods of one value.
func same(t time.Time, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// days returns n date-only lastmods, one a day, ending the day before the build.
func days(n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = time.Date(2026, 11, 28-i, 0, 0, 0, 0, time.UTC)
	}
	return out
}

// spread returns n lastmods step apart from start.
func spread(start time.Time, n int, step time.Duration) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = start.Add(time.Duration(i) * step)
	}
	return out
}

// cat joins lists of lastmods.
func cat(lists ...[]time.Time) []time.Time {
	var out []time.Time
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// msApart returns n lastmods spread evenly over total milliseconds from start, each truncated
// to the millisecond as a generator writes them.
func msApart(start time.Time, n int, total int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = start.Add(time.Duration(i*total/(n-1)) * time.Millisecond)
	}
	return out
}

func TestVerdict(t *testing.T) {
	build := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC) // the build's time: the stamp a generator writes
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	far := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	// Hugo's file times after a CI checkout: 180 files written over 14 s.
	checkout := spread(build.Add(3*time.Second), 180, 78*time.Millisecond)
	tests := []struct {
		name    string
		lastmod []time.Time // a zero time is an entry without one
		want    Verdict
		words   string
	}{
		{"empty", nil, Verdict{}, "content: no URL"},
		{"no lastmod", same(time.Time{}, 3), Verdict{URLs: 3}, "content: no lastmod"},
		{"one value on every URL", same(build, 200),
			Verdict{URLs: 200, Dated: 200, Distinct: 1, Stamp: build, Shared: 200},
			"content: 200 URLs share the lastmod 2026-11-29T08:00:00Z, a build's stamp"},
		{"a date-only stamp", same(day, 50),
			Verdict{URLs: 50, Dated: 50, Distinct: 1, Stamp: day, Shared: 50},
			"content: 50 URLs share the lastmod 2026-11-29T00:00:00Z, a build's stamp"},
		{"a checkout's file times, and 20 true dates", cat(checkout, days(20)),
			Verdict{URLs: 200, Dated: 200, Distinct: 200, Stamp: build.Add(3 * time.Second), Shared: 180, Spread: 179 * 78 * time.Millisecond},
			"content: 180 of 200 URLs have lastmods within 14 s of 2026-11-29T08:00:03Z, a build's stamp"},
		{"next-sitemap: milliseconds apart", msApart(build.Add(513*time.Millisecond), 5000, 8),
			Verdict{URLs: 5000, Dated: 5000, Distinct: 9, Stamp: build.Add(513 * time.Millisecond), Shared: 5000, Spread: 8 * time.Millisecond},
			"content: 5000 URLs have lastmods within 8 ms of 2026-11-29T08:00:00.513Z, a build's stamp"},
		{"an honest blog", days(200),
			Verdict{Trusted: true, URLs: 200, Dated: 200, Distinct: 200},
			"lastmod: trusted, 200 distinct values"},
		{"an honest blog, 4 of 10 posts on one day", cat(same(day, 4), days(6)),
			Verdict{Trusted: true, URLs: 10, Dated: 10, Distinct: 7, Stamp: day, Shared: 4},
			"lastmod: trusted, 7 distinct values"},
		{"half the posts on one day: not most", cat(same(day, 5), days(5)),
			Verdict{URLs: 10, Dated: 10, Distinct: 6, Stamp: day, Shared: 5},
			"content: 5 of 10 URLs share the lastmod 2026-11-29T00:00:00Z, a build's stamp"},
		{"most URLs without lastmod", cat(same(time.Time{}, 4), days(1)),
			Verdict{URLs: 5, Dated: 1, Distinct: 1},
			"content: 4 of 5 URLs have no lastmod"},
		{"most URLs without lastmod, a few sharing one", cat(same(time.Time{}, 6), same(build, 3), days(1)),
			Verdict{URLs: 10, Dated: 4, Distinct: 2, Stamp: build, Shared: 3},
			"content: 6 of 10 URLs have no lastmod"},
		{"some without lastmod, the rest true", cat(same(time.Time{}, 2), days(3)),
			Verdict{Trusted: true, URLs: 5, Dated: 3, Distinct: 3},
			"lastmod: trusted, 3 distinct values on 3 of 5 URLs"},
		{"mixed: missing and stamped are most", cat(same(time.Time{}, 3), same(build, 3), days(4)),
			Verdict{URLs: 10, Dated: 7, Distinct: 5, Stamp: build, Shared: 3},
			"content: 3 of 10 URLs have no lastmod; 3 of 10 URLs share the lastmod 2026-11-29T08:00:00Z, a build's stamp"},
		{"mixed: true lastmods are most", cat(same(time.Time{}, 2), same(build, 2), days(6)),
			Verdict{Trusted: true, URLs: 10, Dated: 8, Distinct: 7, Stamp: build, Shared: 2},
			"lastmod: trusted, 7 distinct values on 8 of 10 URLs"},
		{"one URL", same(build, 1),
			Verdict{URLs: 1, Dated: 1, Distinct: 1, Stamp: build, Shared: 1},
			"content: its only URL has the lastmod 2026-11-29T08:00:00Z, which cannot be told from a build's stamp"},
		{"two URLs, two dates", days(2),
			Verdict{Trusted: true, URLs: 2, Dated: 2, Distinct: 2},
			"lastmod: trusted, 2 distinct values"},
		{"two URLs, one stamp", same(build, 2),
			Verdict{URLs: 2, Dated: 2, Distinct: 1, Stamp: build, Shared: 2},
			"content: 2 URLs share the lastmod 2026-11-29T08:00:00Z, a build's stamp"},
		{"the window's edge: within", []time.Time{far, build, build.Add(StampWindow)},
			Verdict{URLs: 3, Dated: 3, Distinct: 3, Stamp: build, Shared: 2, Spread: StampWindow},
			"content: 2 of 3 URLs have lastmods within 120 s of 2026-11-29T08:00:00Z, a build's stamp"},
		{"the window's edge: past it", []time.Time{far, build, build.Add(StampWindow + time.Millisecond)},
			Verdict{Trusted: true, URLs: 3, Dated: 3, Distinct: 3},
			"lastmod: trusted, 3 distinct values"},
		{"the window slides", cat(spread(build, 5, time.Minute), days(4)),
			Verdict{Trusted: true, URLs: 9, Dated: 9, Distinct: 9, Stamp: build, Shared: 3, Spread: 2 * time.Minute},
			"lastmod: trusted, 9 distinct values"},
		{"one instant in two zones", []time.Time{build, build.In(time.FixedZone("+08:00", 8*3600)), far},
			Verdict{URLs: 3, Dated: 3, Distinct: 2, Stamp: build, Shared: 2},
			"content: 2 of 3 URLs share the lastmod 2026-11-29T08:00:00Z, a build's stamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// In the order a generator might write them: the verdict must not depend on it.
			lastmods := append([]time.Time(nil), tt.lastmod...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(lastmods), func(i, j int) {
				lastmods[i], lastmods[j] = lastmods[j], lastmods[i]
			})
			var l Lastmods
			for _, lm := range lastmods {
				l.Add(lm)
			}
			got := l.Verdict()
			if got != tt.want {
				t.Errorf("verdict\n got %s\nwant %s", fields(got), fields(tt.want))
			}
			if got.String() != tt.words {
				t.Errorf("words\n got %q\nwant %q", got.String(), tt.words)
			}
		})
	}
}

// TestVerdictAgain checks that a verdict leaves the lastmods as they were: asked again, after
// more entries, it counts them all.
func TestVerdictAgain(t *testing.T) {
	build := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	var l Lastmods
	for _, lm := range days(3) {
		l.Add(lm)
	}
	if v := l.Verdict(); !v.Trusted || v.URLs != 3 {
		t.Fatalf("first verdict %+v, want trusted on 3 URLs", v)
	}
	for _, lm := range same(build, 4) {
		l.Add(lm)
	}
	if v := l.Verdict(); v.Trusted || v.URLs != 7 || v.Shared != 4 || v.Distinct != 4 {
		t.Errorf("second verdict %+v, want content: 4 of 7 URLs share a stamp, 4 distinct values", v)
	}
}

// fields shows every field of a verdict, which its String does not.
func fields(v Verdict) string {
	return fmt.Sprintf("{Trusted:%v URLs:%d Dated:%d Distinct:%d Stamp:%s Shared:%d Spread:%s}",
		v.Trusted, v.URLs, v.Dated, v.Distinct, v.Stamp.Format(time.RFC3339Nano), v.Shared, v.Spread)
}
