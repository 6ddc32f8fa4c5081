package kvstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

var (
	ctx = context.Background()
	t0  = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

func TestShardCodec(t *testing.T) {
	entries := map[int64]*entry{
		1: {url: "https://a.example/é", lastmod: t0.UnixMilli(), firstSeen: 1, lastSeen: 2},
		-5: {url: "https://a.example/x", del: []delivery{
			{channel: "indexnow", lastmod: -1, deliveredAt: 3, outcome: outcomeOK, attempts: 1, lastAttempt: 3},
			{channel: "bing", outcome: outcomeFailed, attempts: 7, lastAttempt: 4, lastError: "HTTP 503"},
		}},
		1 << 62: {url: ""},
	}
	b := encodeShard(entries)
	got, err := decodeShard(b)
	if err != nil || len(got) != len(entries) {
		t.Fatalf("decode: %d entries, %v", len(got), err)
	}
	for h, e := range entries {
		g := got[h]
		if g == nil || g.url != e.url || g.lastmod != e.lastmod || g.firstSeen != e.firstSeen || g.lastSeen != e.lastSeen || len(g.del) != len(e.del) {
			t.Fatalf("entry %d: %+v, want %+v", h, g, e)
		}
		for i := range e.del {
			if g.del[i] != e.del[i] {
				t.Errorf("entry %d, delivery %d: %+v, want %+v", h, i, g.del[i], e.del[i])
			}
		}
	}
	// A value cut short, or not a shard at all, is refused whole: never half a catalogue.
	for _, bad := range [][]byte{b[:len(b)/2], b[:5], []byte("{\"json\": true}"), nil, bytes.Repeat([]byte{0xff}, 64)} {
		if _, err := decodeShard(bad); !errors.Is(err, errShard) {
			t.Errorf("decoding %d bytes of damage: %v", len(bad), err)
		}
	}
}

func FuzzDecodeShard(f *testing.F) {
	f.Add(encodeShard(map[int64]*entry{1: {url: "https://a/", del: []delivery{{channel: "bing", attempts: 2}}}}))
	f.Add([]byte(shardMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := decodeShard(b)
		if err != nil {
			return
		}
		if again, err := decodeShard(encodeShard(entries)); err != nil || len(again) != len(entries) {
			t.Fatalf("a shard read back from what it wrote: %d of %d entries, %v", len(again), len(entries), err)
		}
	})
}

// TestOpsBudget checks that the operations of an invocation are counted: Spent is told once, at
// the operation that makes four fifths (8 of 10) and not one before, and an operation past the
// budget is refused, the rest left for later. Spent is told on a goroutine of its own (the state's
// lock is held where it is counted), so the test waits for the bubble's goroutines to settle
// (synctest.Wait) before each look, never for real time.
func TestOpsBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var told atomic.Int32
		kv := &MemKV{}
		s := New(kv, Options{Ops: 10, Spent: func() { told.Add(1) }})
		var err error
		for i := 0; err == nil; i++ {
			_, err = s.LastStarted(ctx, fmt.Sprint("site-", i))
			synctest.Wait()
			made := s.Ops().Total()
			want := int32(0)
			if made >= 8 {
				want = 1
			}
			if told.Load() != want {
				t.Fatalf("after %d of 10 operations, Spent was told %d times; want once from the 8th, not before", made, told.Load())
			}
		}
		if !errors.Is(err, ErrOpsSpent) {
			t.Errorf("past the budget: %v; want ErrOpsSpent", err)
		}
		if got := kv.Ops().Total(); got != 10 || s.Ops().Total() != 10 {
			t.Errorf("%d operations reached the namespace, %d counted; want 10", got, s.Ops().Total())
		}
	})
}

// TestMemoryIsBounded: the sites' catalogues held in memory stay within the bound — the other
// sites' shards make room, written first if they changed — and a site larger than the bound
// alone is refused with a message that says what to do.
func TestMemoryIsBounded(t *testing.T) {
	kv := &MemKV{}
	s := New(kv, Options{Entries: 1000, Ops: 1_000_000})
	pagesOf := func(site string, n int) []channel.Page {
		var pages []channel.Page
		for i := range n {
			h := int64(uint64(i+1) * 0x9E3779B97F4A7C15) // spread over the shards
			pages = append(pages, channel.Page{Hash: h, URL: fmt.Sprintf("https://%s.example/p/%d", site, i)})
		}
		return pages
	}
	sites := []string{"a", "b", "c", "d"}
	held := 0
	for _, site := range sites {
		if _, err := s.SyncCatalog(ctx, site, t0, pagesOf(site, 800), []string{"indexnow"}, false); err != nil {
			t.Fatal(err)
		}
		held = max(held, s.entries)
	}
	// The bound may be passed by one shard being read (1/16 of a catalogue) and the batch.
	if limit := 1000 + 800/16 + 800; held > limit {
		t.Errorf("held %d entries at most; want at most %d", held, limit)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	again := New(kv, Options{Ops: 1_000_000})
	for _, site := range sites {
		pages := pagesOf(site, 800)
		hashes := make([]int64, len(pages))
		for i, p := range pages {
			hashes[i] = p.Hash
		}
		urls, err := again.URLs(ctx, site, hashes)
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range urls {
			if u != pages[i].URL {
				t.Fatalf("site %s, URL %d after its shards were dropped and read again: %q, want %q", site, i, u, pages[i].URL)
			}
		}
	}

	big := New(&MemKV{}, Options{Entries: 1000, Ops: 1_000_000})
	pages := pagesOf("big", 3000)
	var err error
	for from := 0; from < len(pages) && err == nil; from += 500 {
		_, err = big.SyncCatalog(ctx, "big", t0, pages[from:from+500], []string{"indexnow"}, false)
	}
	if !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), `site "big": too many URLs: more than 1000`) ||
		!strings.Contains(err.Error(), "sitepush serve") {
		t.Errorf("a site larger than the bound: %v", err)
	}
}

// PendingDeliveries lists the site's shards once and reads only those whose summary says they
// may hold a URL pending on the channels asked for — and those written before shards were summed
// up, which have none.
func TestPendingReadsOnlyTheShardsThatMayHoldThem(t *testing.T) {
	kv := &MemKV{}
	s := New(kv, Options{})
	day := 24 * time.Hour
	shard := func(n int64) int64 { return n << (64 - shardBits) }
	record := func(at time.Time, h int64, o channel.Outcome) {
		t.Helper()
		o.Channel, o.URLs = "indexnow", []channel.Due{{Hash: h, URL: fmt.Sprintf("https://a.example/%d", h)}}
		if err := s.RecordOutcome(ctx, "a", at, o); err != nil {
			t.Fatal(err)
		}
	}
	record(t0, shard(1), channel.Outcome{Delivered: true})
	record(t0, shard(2), channel.Outcome{Err: "HTTP 503"})
	record(t0.Add(-40*day), shard(3), channel.Outcome{Delivered: true})
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	old := encodeShard(map[int64]*entry{shard(5): {url: "https://a.example/5", del: []delivery{{channel: "indexnow", deliveredAt: t0.UnixMilli(), attempts: 1}}}})
	if err := kv.Put(ctx, shardKey("a", 5), old, 0, ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		channel       string
		resubmitAfter time.Duration
		want          []int64
		reads         int
	}{
		{"indexnow", 30 * day, []int64{shard(2), shard(3)}, 3},
		{"indexnow", 0, []int64{shard(2)}, 2},
		{"bing", 30 * day, nil, 1},
	} {
		next := New(kv, Options{})
		ch := []string{tc.channel}
		got, err := next.PendingDeliveries(ctx, "a", model.PendingQuery{Failed: ch, Resubmit: ch, Now: t0, ResubmitAfter: tc.resubmitAfter})
		var hashes []int64
		for _, p := range got {
			hashes = append(hashes, p.Hash)
		}
		slices.Sort(hashes)
		if ops := next.Ops(); err != nil || !slices.Equal(hashes, tc.want) || ops.Lists != 1 || ops.Reads != tc.reads {
			t.Errorf("%s, resubmitAfter %s: %v, %v, %+v; want %v from %d reads", tc.channel, tc.resubmitAfter, hashes, err, ops, tc.want, tc.reads)
		}
	}
}
