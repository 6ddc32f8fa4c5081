package sitemap

// entry is what the document parser hands over for one entry of a sitemap or feed: its URLs and
// its date, trimmed and decoded but otherwise as written. Its slices are valid until the parser
// goes on.
type entry struct {
	locs [][]byte
	// undecoded[i] says locs[i] holds a reference that could not be decoded (see
	// appendUnescaped): it must not be used.
	undecoded        []bool
	lastmod          []byte
	lastmodUndecoded bool
}

// fields collects the fields of the entry being parsed token by token.
type fields struct {
	locs             []byte // the URL values, one after another
	locEnds          []int
	undecoded        []bool
	guid             []byte
	guidUndecoded    bool
	lastmod          []byte
	lastmodUndecoded bool
	lastmodRank      int
}

func (f *fields) reset() {
	f.locs, f.locEnds, f.undecoded = f.locs[:0], f.locEnds[:0], f.undecoded[:0]
	f.guid, f.guidUndecoded = f.guid[:0], false
	f.lastmod, f.lastmodUndecoded, f.lastmodRank = f.lastmod[:0], false, 0
}

func (f *fields) addLoc(v []byte, undecoded bool) {
	f.locs = append(f.locs, v...)
	f.locEnds = append(f.locEnds, len(f.locs))
	f.undecoded = append(f.undecoded, undecoded)
}

// setLastmod keeps v when it outranks the date already kept.
func (f *fields) setLastmod(v []byte, undecoded bool, rank int) {
	if rank > f.lastmodRank && len(v) > 0 {
		f.lastmod, f.lastmodUndecoded, f.lastmodRank = append(f.lastmod[:0], v...), undecoded, rank
	}
}

// fill makes e the entry these fields describe: its URLs, else its permalink guid.
func (f *fields) fill(e *entry) {
	e.locs, e.undecoded = e.locs[:0], e.undecoded[:0]
	lo := 0
	for i, hi := range f.locEnds {
		e.locs = append(e.locs, f.locs[lo:hi])
		e.undecoded = append(e.undecoded, f.undecoded[i])
		lo = hi
	}
	if len(e.locs) == 0 && len(f.guid) > 0 {
		e.locs = append(e.locs, f.guid)
		e.undecoded = append(e.undecoded, f.guidUndecoded)
	}
	e.lastmod, e.lastmodUndecoded = f.lastmod, f.lastmodUndecoded
}
