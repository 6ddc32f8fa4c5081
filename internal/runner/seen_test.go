package runner

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// seen takes each hash once, whatever the sizes of the files that bring it, and keeps few runs:
// files of sizes at random that share many pages, then ever smaller files of new pages.
func TestSeen(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var s seen
	taken := map[int64]bool{}
	next := int64(1 << 40)
	for file := range 300 {
		n := []int{0, 1, 7, 1000, 20_000}[file%5] + rnd.IntN(50)
		if file >= 150 {
			n = 3000 - 20*(file-150)
		}
		pages := make([]filePage, n)
		for i := range pages {
			// Hashes from a narrow range, negative ones too, then new ones.
			pages[i].hash = rnd.Int64N(400_000) - 200_000
			if file >= 150 {
				pages[i].hash, next = next, next+1
			}
		}
		slices.SortFunc(pages, func(a, b filePage) int { return int(a.hash - b.hash) })
		pages = slices.CompactFunc(pages, func(a, b filePage) bool { return a.hash == b.hash })
		var want []int64
		for _, p := range pages {
			if !taken[p.hash] {
				want = append(want, p.hash)
			}
		}
		var got []int64
		before := slices.Clone(pages)
		for _, p := range s.add(pages) {
			got = append(got, p.hash)
			taken[p.hash] = true
		}
		if !slices.Equal(got, want) || !slices.Equal(pages, before) {
			t.Fatalf("file %d: took %d of %d pages, want %d (pages left as they were: %t)", file, len(got), n, len(want), slices.Equal(pages, before))
		}
	}
	total := 0
	for _, run := range s.runs {
		total += len(run)
		if !slices.IsSorted(run) {
			t.Fatal("a run is out of order")
		}
	}
	if total != len(taken) || len(s.runs) > bits.Len(uint(total)) {
		t.Errorf("%d hashes in %d runs; want %d in at most %d", total, len(s.runs), len(taken), bits.Len(uint(total)))
	}
}
