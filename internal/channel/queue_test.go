package channel

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func hashes(ds []Due) []int64 {
	var out []int64
	for _, d := range ds {
		out = append(out, d.Hash)
	}
	return out
}

func TestQueueOrdersRetriesFirst(t *testing.T) {
	q := NewQueue("s", nil)
	for _, d := range []Due{{Hash: 1}, {Hash: 2, Retry: true}, {Hash: 3}, {Hash: 4, Retry: true}} {
		q.Add(d)
	}
	if got, want := hashes(q.Refs(0, q.Len())), []int64{2, 4, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if got := hashes(q.Refs(1, 3)); !slices.Equal(got, []int64{4, 1}) {
		t.Errorf("a slice across the failed and the rest: %v", got)
	}
}

// TestQueueInMemory is a queue as a channel's tests build it: no state, the URLs in a map.
func TestQueueInMemory(t *testing.T) {
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	q := NewQueue("s", URLMap{1: "https://a.example/1", 2: "https://a.example/2", 3: "https://a.example/3"})
	q.Add(Due{Hash: 1})
	q.Add(Due{Hash: 2, Lastmod: day, Retry: true, Failures: 3})
	q.Add(Due{Hash: 3, Lastmod: day.Add(time.Hour)})
	q.Read([]Page{{Hash: 3, URL: "https://a.example/3"}}, true)
	got, err := q.Slice(context.Background(), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Due{{Hash: 2, URL: "https://a.example/2", Lastmod: day, Retry: true, Failures: 3}, {Hash: 1, URL: "https://a.example/1"},
		{Hash: 3, URL: "https://a.example/3", Lastmod: day.Add(time.Hour)}}
	if !slices.Equal(got, want) || !q.Complete() || len(q.Newest()) != 1 {
		t.Errorf("slice %+v, complete %v, newest %v", got, q.Complete(), q.Newest())
	}
	// Newest first, the undated last, ties in random order.
	q.Shuffle(rand.New(rand.NewPCG(1, 2)))
	q.SortStable(func(a, b Meta) int {
		if a.Lastmod.IsZero() != b.Lastmod.IsZero() {
			if a.Lastmod.IsZero() {
				return 1
			}
			return -1
		}
		return b.Lastmod.Compare(a.Lastmod)
	})
	if got := hashes(q.Refs(0, 3)); !slices.Equal(got, []int64{3, 2, 1}) {
		t.Errorf("sorted newest first: %v", got)
	}
	lost := NewQueue("s", URLMap{})
	lost.Add(Due{Hash: 9})
	if _, err := lost.Slice(context.Background(), 0, 1); err == nil {
		t.Error("a due URL whose text is lost read without an error")
	}
}

// TestQueueKeepsWhatItWasGiven: a due URL comes back out of its 16 bytes as it went in — a
// lastmod before 1970 or far ahead, to the millisecond, a retry with and without failures — and
// a split queue keeps the failure counts.
func TestQueueKeepsWhatItWasGiven(t *testing.T) {
	in := []Due{
		{Hash: -5, Lastmod: time.Date(1969, 7, 20, 20, 17, 40, 123e6, time.UTC), Retry: true, Failures: 70000},
		{Hash: 9, Lastmod: time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC), Retry: true},
		{Hash: 3, Lastmod: time.Date(2026, 11, 24, 1, 2, 3, 4e6, time.UTC)},
		{Hash: 7},
	}
	q := NewQueue("s", URLMap{})
	for _, d := range in {
		q.Add(d)
	}
	in[0].Failures = math.MaxUint16
	if got := q.Refs(0, q.Len()); !slices.Equal(got, in) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, in)
	}
	old := q.Split(func(m Meta) bool { return m.Lastmod.Year() > 2000 })
	if got := old.Refs(0, old.Len()); !slices.Equal(got, []Due{in[0], in[3]}) {
		t.Errorf("split off %+v", got)
	}
}
