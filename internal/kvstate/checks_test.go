package kvstate

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// oldShard is a shard as sitepush wrote it before content checks: one entry, delivered on
// indexnow, failed on bing.
const oldShard = "73706b310208696e6465786e6f770462696e6701fbffffffffffffff1368747470733a2f2f612e6578616d706c652f78" +
	"80a8a894956780a8a894956780e2df979567020080a8a8949567c0d1af9495670001c0d1af94956700010000010280fbb6949567084854545020353033"

// TestShardCodecChecks: a shard written before content checks decodes, and a shard without what
// checks find is written as it was, not a byte more; one with it reads back whole.
func TestShardCodecChecks(t *testing.T) {
	old, _ := hex.DecodeString(oldShard)
	got, err := decodeShard(old)
	want := entry{url: "https://a.example/x", lastmod: t0.UnixMilli(), firstSeen: t0.UnixMilli(), lastSeen: t0.Add(time.Hour).UnixMilli(), del: []delivery{
		{channel: "indexnow", lastmod: t0.UnixMilli(), deliveredAt: t0.Add(time.Minute).UnixMilli(), outcome: outcomeOK, attempts: 1, lastAttempt: t0.Add(time.Minute).UnixMilli()},
		{channel: "bing", outcome: outcomeFailed, attempts: 2, lastAttempt: t0.Add(2 * time.Minute).UnixMilli(), lastError: "HTTP 503"},
	}}
	if err != nil || len(got) != 1 || !sameEntry(got[-5], &want) {
		t.Fatalf("an old shard: %v, %v; want %+v", got, err, want)
	}
	if again := encodeShard(got); !bytes.Equal(again, old) {
		t.Errorf("a shard without checks, written again: %x; want the bytes it was written with, %x", again, old)
	}

	withChecks := map[int64]*entry{
		1: {url: "https://a.example/1", checks: &pageChecks{place: suspect}, del: []delivery{{channel: "indexnow", outcome: outcomeOK, attempts: 1}}},
		2: {url: "https://a.example/2", checks: &pageChecks{place: t0.UnixMilli(), content: 1 << 63, valid: model.Validators{ETag: `"x"`, LastModified: "Sun, 01 Mar 2026 12:00:00 GMT"}},
			del: []delivery{{channel: "indexnow", sent: 1 << 63}, {channel: "bing", sent: 7}, {channel: "feed"}}},
		3: {url: "https://a.example/3", checks: &pageChecks{content: 9}},
		4: {url: "https://a.example/4"},
		5: {url: "https://a.example/5", checks: &pageChecks{}},
	}
	b := encodeShard(withChecks)
	got, err = decodeShard(b)
	if err != nil || len(got) != len(withChecks) {
		t.Fatalf("a shard with checks: %d entries, %v", len(got), err)
	}
	for h, e := range withChecks {
		if !sameEntry(got[h], e) {
			t.Errorf("entry %d: %+v, want %+v", h, got[h], e)
		}
	}
	for _, bad := range [][]byte{b[:len(b)-1], b[:len(b)/2]} {
		if _, err := decodeShard(bad); !errors.Is(err, errShard) {
			t.Errorf("a shard with checks cut to %d bytes: %v", len(bad), err)
		}
	}
}

// sameEntry reports whether two entries hold the same, what checks know compared by value (an
// entry of which they know nothing may have it nil or empty).
func sameEntry(a, b *entry) bool {
	if a == nil || b == nil || a.url != b.url || a.lastmod != b.lastmod || a.firstSeen != b.firstSeen || a.lastSeen != b.lastSeen {
		return false
	}
	var x, y pageChecks
	if a.checks != nil {
		x = *a.checks
	}
	if b.checks != nil {
		y = *b.checks
	}
	return x == y && slices.Equal(a.del, b.del)
}

// TestPagesToCheckReadsOnlyTheShardsInTheRotation: a site that never checked content costs
// PagesToCheck no operation but its meta; one that did lists its shards once and reads those
// whose summary counts pages in the rotation — the least place first, no more than the limit
// needs — and those whose summary was written before summaries told of the rotation, writing
// their summary again once.
func TestPagesToCheckReadsOnlyTheShardsInTheRotation(t *testing.T) {
	kv := &MemKV{}
	shard := func(n, i int64) int64 { return n<<(64-shardBits) | i }
	page := func(h int64, check bool) channel.Page {
		return channel.Page{Hash: h, URL: fmt.Sprintf("https://a.example/%x", h), Lastmod: t0, Check: check}
	}
	invocation := func() *State { return New(kv, Options{}) }
	toCheck := func(s *State, limit int) []int64 {
		t.Helper()
		got, err := s.PagesToCheck(ctx, "a", limit)
		if err != nil {
			t.Fatal(err)
		}
		var hashes []int64
		for _, c := range got {
			hashes = append(hashes, c.Hash)
		}
		return hashes
	}
	s := invocation()
	sync := func(pages ...channel.Page) {
		t.Helper()
		if _, err := s.SyncCatalog(ctx, "a", t0, pages, nil, false); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sync(page(shard(1, 1), false), page(shard(2, 1), false), page(shard(3, 1), false))
	s = invocation()
	if got := toCheck(s, 10); len(got) != 0 || s.Ops() != (Ops{Reads: 1}) {
		t.Errorf("a site that never checked content: %v, %+v; want nothing, its meta read alone", got, s.Ops())
	}

	sync(page(shard(2, 2), true), page(shard(5, 1), true))
	if err := s.RecordChecks(ctx, "a", []model.PageCheck{{Hash: shard(5, 1), At: t0, Content: 5}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	before, _ := hex.DecodeString(oldShard)
	if err := kv.Put(ctx, shardKey("a", 7), before, 0, `sum1 {"indexnow":[0,1,0]}`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit int
		want  []int64
		reads int
	}{
		{10, []int64{shard(2, 2), shard(5, 1)}, 4}, // the meta, shards 2, 5 and 7 (an old summary), not 1 nor 3
		{1, []int64{shard(2, 2)}, 2},               // the meta and shard 2: shard 5's pages come after
	} {
		s = invocation()
		if got := toCheck(s, tc.limit); !slices.Equal(got, tc.want) || s.Ops() != (Ops{Reads: tc.reads, Lists: 1}) {
			t.Errorf("limit %d: %x, %+v; want %x, from %d reads and a list", tc.limit, got, s.Ops(), tc.want, tc.reads)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// Every page leaves the rotation: the site costs nothing again once PagesToCheck found so.
	sync(page(shard(2, 2), false), page(shard(5, 1), false))
	s = invocation()
	if got := toCheck(s, 10); len(got) != 0 {
		t.Errorf("pages out of the rotation: %x to check", got)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s = invocation()
	if got := toCheck(s, 10); len(got) != 0 || s.Ops() != (Ops{Reads: 1}) {
		t.Errorf("a site whose rotation emptied: %x, %+v; want nothing, its meta read alone", got, s.Ops())
	}
}

// TestMarkLeftReadsNothingWithoutARotation: a URL that left the sitemaps leaves the rotation,
// which costs a site that never checked content no read of its shards.
func TestMarkLeftReadsNothingWithoutARotation(t *testing.T) {
	for _, check := range []bool{false, true} {
		kv := &MemKV{}
		s := New(kv, Options{})
		if _, err := s.SyncCatalog(ctx, "a", t0, []channel.Page{{Hash: 1, URL: "https://a.example/1", Check: check}}, nil, false); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		s = New(kv, Options{})
		if err := s.MarkLeft(ctx, "a", []int64{1}, t0); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 1, true: 2}[check]; s.Ops().Reads != want {
			t.Errorf("check %v: MarkLeft made %d reads, want %d (the meta, and the shard when the site has a rotation)", check, s.Ops().Reads, want)
		}
	}
}
