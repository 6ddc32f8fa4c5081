package sitemap

import "testing"

func TestHashSet(t *testing.T) {
	var s hashSet
	// Hashes that collide on every table size, the zero hash, and enough of them to grow.
	hs := []uint64{0}
	for i := range uint64(5000) {
		hs = append(hs, (i+1)<<40, (i+1)*0x9e3779b97f4a7c15)
	}
	for _, h := range hs {
		if !s.add(h) {
			t.Fatalf("add(%#x) reported a duplicate of a new hash", h)
		}
	}
	s.warm(hs)
	s.reserve(100000)
	for _, h := range hs {
		if s.add(h) {
			t.Fatalf("add(%#x) a second time reported it new", h)
		}
	}
	if s.n != len(hs) {
		t.Fatalf("n = %d, want %d", s.n, len(hs))
	}
	if 8*s.n > 7*len(s.slots) || len(s.slots)&(len(s.slots)-1) != 0 {
		t.Fatalf("%d hashes in %d slots: over the load limit or not a power of two", s.n, len(s.slots))
	}
}
