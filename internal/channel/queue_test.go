package channel

import (
	"context"
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
