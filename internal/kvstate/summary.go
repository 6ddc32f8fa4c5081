package kvstate

import (
	"context"
	"encoding/json"
	"maps"
	"strconv"
	"strings"

	"github.com/sitepush/sitepush/internal/model"
)

// summary is what a shard's metadata says of it, by channel: how many of its URLs' last attempt
// failed, the earliest time one of its URLs was last accepted, and the earliest time one a
// preflight held back was checked (0: none was). A summary written before it had the third
// figure reads it as 0: no preflight ran then. Under rotationKey, which names no channel, it
// says how many of its pages are in the rotation of content checks and the least place among
// them (checks.go): absent when none is.
type summary map[string][3]int64

// rotationKey is the key of a summary that tells of the rotation of content checks.
const rotationKey = ""

// summarize sums a shard's entries up.
func summarize(entries map[int64]*entry) summary {
	sum := summary{}
	for _, e := range entries {
		if place := e.place(); place != 0 {
			r, ok := sum[rotationKey]
			if !ok || place < r[1] {
				r[1] = place
			}
			r[0]++
			sum[rotationKey] = r
		}
		for _, d := range e.del {
			v := sum[d.channel]
			if d.outcome == outcomeFailed {
				v[0]++
			}
			if d.accepted() && d.deliveredAt != 0 && (v[1] == 0 || d.deliveredAt < v[1]) {
				v[1] = d.deliveredAt
			}
			if d.outcome == outcomeIneligible && (v[2] == 0 || d.lastAttempt < v[2]) {
				v[2] = d.lastAttempt
			}
			sum[d.channel] = v
		}
	}
	return sum
}

// checkSummary checks the summary a shard was listed with against the shard, read whole anyway,
// and has the shard written again when it lies, or has none (written before shards were summed
// up): a summary is a cache of the shard, and one written by hand or by another tool could keep
// its failed URLs from ever being asked for again. A shard that changed is written anyway; one
// not listed (KV's list may lag its writes) is taken as it is. s.mu is held.
//
// A summary written before summaries told of the rotation is written again too, once the site
// has a rotation: until then, PagesToCheck reads its shard.
func (st *site) checkSummary(sh *shard) {
	meta, ok := st.listed[sh.n]
	if !ok || sh.dirty {
		return
	}
	listed, told := parseSummary(meta)
	if listed == nil || !told && st.meta != nil && st.meta.Rotation || !maps.Equal(listed, summarize(sh.entries)) {
		sh.dirty = true
	}
}

// summaryMark begins a shard's metadata: a shard written before it was summed up has none, one
// written before summaries told of the rotation of content checks has oldSummaryMark.
const (
	summaryMark    = "sum2 "
	oldSummaryMark = "sum1 "
)

// String is the metadata of a shard: "sum2 " and the summary in JSON (a few dozen bytes a channel).
func (sum summary) String() string {
	b, _ := json.Marshal(map[string][3]int64(sum))
	return summaryMark + string(b)
}

// parseSummary reads a shard's metadata: nil when it is not a summary; told is false when it is
// one written before summaries told of the rotation of content checks.
func parseSummary(meta string) (sum summary, told bool) {
	rest, told := strings.CutPrefix(meta, summaryMark)
	if !told {
		var old bool
		if rest, old = strings.CutPrefix(meta, oldSummaryMark); !old {
			return nil, false
		}
	}
	if json.Unmarshal([]byte(rest), &sum) != nil {
		return nil, false
	}
	return sum, told
}

// settled reports whether a summed-up shard holds no URL q asks for: none failed on a channel of
// q.Failed, none accepted at or before before on one of q.Resubmit, none held back by a preflight
// and checked at or before the time q.Recheck gives its channel. A shard without a summary may
// hold some.
func (sum summary) settled(q model.PendingQuery, before int64) bool {
	if sum == nil {
		return false
	}
	for _, ch := range q.Failed {
		if sum[ch][0] > 0 {
			return false
		}
	}
	for _, ch := range q.Resubmit {
		if v := sum[ch]; before != 0 && v[1] != 0 && v[1] <= before {
			return false
		}
	}
	for ch, at := range q.Recheck {
		if v := sum[ch]; v[2] != 0 && v[2] <= at.UnixMilli() {
			return false
		}
	}
	return true
}

// listShards lists site's shards: the metadata of each shard written (its summary), by number;
// s.mu is held.
func (s *State) listShards(ctx context.Context, st *site) (map[int]string, error) {
	keys, err := s.list(ctx, shardPrefix(st.id))
	if err != nil {
		return nil, err
	}
	listed := map[int]string{}
	for _, k := range keys {
		if n, err := strconv.ParseUint(strings.TrimPrefix(k.Name, shardPrefix(st.id)), 16, shardBits); err == nil {
			listed[int(n)] = k.Metadata
		}
	}
	return listed, nil
}
