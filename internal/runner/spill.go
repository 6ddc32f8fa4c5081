package runner

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"
	"unsafe"
)

// spill is a temporary file for what a run, a baseline or a diff would otherwise hold in memory:
// a run's pages, a baseline's URLs. Where the system lets an open file be removed, it is removed
// as soon as it is made, so that nothing is left behind however the process ends; elsewhere
// Close removes it.
type spill struct {
	f    *os.File
	name string // the file's name while it still has one
}

// newSpill creates a spill in the system's temporary directory; what says what it is for.
func newSpill(what string) (*spill, error) {
	f, err := os.CreateTemp("", "sitepush-*")
	if err != nil {
		return nil, fmt.Errorf("a temporary file for %s: %w; set TMPDIR to a writable directory", what, err)
	}
	s := &spill{f: f, name: f.Name()}
	if os.Remove(s.name) == nil {
		s.name = ""
	}
	return s, nil
}

// section returns a reader of n bytes from off, buffered: readers of different sections may
// read at once.
func (s *spill) section(off, n int64, size int) *bufio.Reader {
	return bufio.NewReaderSize(io.NewSectionReader(s.f, off, n), size)
}

// Close closes the file and removes it if it was not removed already.
func (s *spill) Close() error {
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
	}
	return err
}

// noLastmod is the stamp of a page without a lastmod.
const noLastmod = math.MinInt64

// stamp returns a lastmod as microseconds since 1970 — every year a sitemap can write fits in
// 64 bits, which nanoseconds would not — or noLastmod for none.
func stamp(t time.Time) int64 {
	if t.IsZero() {
		return noLastmod
	}
	return t.UnixMicro()
}

// unstamp returns the lastmod of a stamp, in UTC.
func unstamp(s int64) time.Time {
	if s == noLastmod {
		return time.Time{}
	}
	return time.UnixMicro(s).UTC()
}

// sortBudget is the memory, in bytes, a changeSorter fills before it writes a sorted chunk out.
var sortBudget = 8 << 20

// changeSorter sorts changes of one kind by URL in bounded memory: it keeps up to sortBudget
// bytes of them, then writes them, sorted, as a chunk of a spill; each merges the chunks.
type changeSorter struct {
	kind   string
	held   []Change
	bytes  int
	file   *spill
	chunks [][2]int64 // offset and length of each chunk in file
	end    int64
	buf    []byte
}

// add takes one change, of the sorter's kind.
func (s *changeSorter) add(c Change) error {
	c.Kind = s.kind
	s.held = append(s.held, c)
	s.bytes += len(c.URL) + int(unsafe.Sizeof(c))
	if s.bytes < sortBudget {
		return nil
	}
	return s.flush()
}

// flush writes the changes held, sorted, as one chunk.
func (s *changeSorter) flush() error {
	if len(s.held) == 0 {
		return nil
	}
	if s.file == nil {
		f, err := newSpill("the changes to sort")
		if err != nil {
			return err
		}
		s.file = f
	}
	s.sort()
	w := bufio.NewWriterSize(io.NewOffsetWriter(s.file.f, s.end), 64<<10)
	n := int64(0)
	for _, c := range s.held {
		s.buf = binary.AppendUvarint(s.buf[:0], uint64(len(c.URL)))
		s.buf = append(s.buf, c.URL...)
		s.buf = binary.AppendVarint(s.buf, stamp(c.Lastmod))
		s.buf = binary.AppendVarint(s.buf, stamp(c.Before))
		if _, err := w.Write(s.buf); err != nil {
			return fmt.Errorf("writing changes to a temporary file: %w", err)
		}
		n += int64(len(s.buf))
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing changes to a temporary file: %w", err)
	}
	s.chunks = append(s.chunks, [2]int64{s.end, n})
	s.end += n
	s.held, s.bytes = s.held[:0], 0
	return nil
}

// sort sorts the changes held by URL.
func (s *changeSorter) sort() {
	slices.SortFunc(s.held, func(a, b Change) int { return cmp.Compare(a.URL, b.URL) })
}

// each calls fn with every change taken, sorted by URL, and releases what the sorter holds.
func (s *changeSorter) each(fn func(Change) error) error {
	defer s.close()
	if s.file == nil {
		s.sort()
		for _, c := range s.held {
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	var h chunkHeap
	for _, ch := range s.chunks {
		r := &chunkReader{r: s.file.section(ch[0], ch[1], 16<<10), kind: s.kind}
		if ok, err := r.next(); err != nil {
			return err
		} else if ok {
			h = append(h, r)
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		r := h[0]
		if err := fn(r.c); err != nil {
			return err
		}
		switch ok, err := r.next(); {
		case err != nil:
			return err
		case ok:
			heap.Fix(&h, 0)
		default:
			heap.Pop(&h)
		}
	}
	return nil
}

// close releases the changes held and the spill.
func (s *changeSorter) close() {
	s.held = nil
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
}

// chunkReader reads the changes of one sorted chunk.
type chunkReader struct {
	r    *bufio.Reader
	kind string
	c    Change
	buf  []byte
}

// next reads the next change into c; false at the chunk's end.
func (r *chunkReader) next() (bool, error) {
	n, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	if err == nil {
		r.buf = slices.Grow(r.buf[:0], int(n))[:n]
		_, err = io.ReadFull(r.r, r.buf)
	}
	var lastmod, before int64
	if err == nil {
		lastmod, err = binary.ReadVarint(r.r)
	}
	if err == nil {
		before, err = binary.ReadVarint(r.r)
	}
	if err != nil {
		return false, fmt.Errorf("reading changes back from a temporary file: %w", err)
	}
	r.c = Change{Kind: r.kind, URL: string(r.buf), Lastmod: unstamp(lastmod), Before: unstamp(before)}
	return true, nil
}

// chunkHeap orders chunk readers by the URL of their next change (container/heap).
type chunkHeap []*chunkReader

func (h chunkHeap) Len() int           { return len(h) }
func (h chunkHeap) Less(i, j int) bool { return h[i].c.URL < h[j].c.URL }
func (h chunkHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *chunkHeap) Push(x any)        { *h = append(*h, x.(*chunkReader)) }
func (h *chunkHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}
