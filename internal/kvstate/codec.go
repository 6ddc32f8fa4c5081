package kvstate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A shard is written as: the magic, the channel names it uses, then its entries — each a hash,
// its URL, lastmod, first and last seen, and a record per channel. Integers are varints: a 50,000
// URL site takes about 7 MB, read and written a shard at a time.
//
// A shard that holds what content checks found (docs/runs.md, "What changed") has the magic
// shardMagicChecks, and each entry, after its last-seen time, a byte of flags saying which of
// its place in the rotation, content and validators follow, and each record of a channel, after
// its error, what was sent (sentNone, sentContent: the entry's content, or sentOther and 8
// bytes). A site that never checks content writes the first form: not a byte more.
const (
	shardMagic       = "spk1"
	shardMagicChecks = "spk2"
)

// Outcomes of a delivery's last attempt.
const (
	outcomeOK byte = iota
	outcomeFailed
	outcomeRejected
	// outcomeSkipped is what sitepush wrote, before it kept why, of a URL taken as known without
	// being sent, with the time taken as its delivery: read as outcomeBacklog (decodeShard).
	outcomeSkipped
	outcomeIneligible // a preflight held the URL back: lastmod is the one checked, lastAttempt when
	// outcomeBacklog and outcomeBaseline: taken as known without being sent (model.UnsentBacklog,
	// model.UnsentBaseline); lastmod is the one taken, lastAttempt when, and no attempt is counted.
	outcomeBacklog
	outcomeBaseline
)

// encodeShard writes a shard's entries.
func encodeShard(entries map[int64]*entry) []byte {
	names, index := []string{}, map[string]uint64{}
	size := len(shardMagic) + 8
	for _, e := range entries {
		size += 40 + len(e.url)
		for _, d := range e.del {
			if _, ok := index[d.channel]; !ok {
				index[d.channel] = uint64(len(names))
				names = append(names, d.channel)
			}
			size += 40 + len(d.lastError)
		}
	}
	checks := withChecks(entries)
	b := make([]byte, 0, size)
	if checks {
		b = append(b, shardMagicChecks...)
	} else {
		b = append(b, shardMagic...)
	}
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = appendString(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(entries)))
	for h, e := range entries {
		b = binary.LittleEndian.AppendUint64(b, uint64(h))
		b = appendString(b, e.url)
		b = binary.AppendVarint(b, e.lastmod)
		b = binary.AppendVarint(b, e.firstSeen)
		b = binary.AppendVarint(b, e.lastSeen)
		if checks {
			b = appendChecks(b, e)
		}
		b = binary.AppendUvarint(b, uint64(len(e.del)))
		for _, d := range e.del {
			b = binary.AppendUvarint(b, index[d.channel])
			b = binary.AppendVarint(b, d.lastmod)
			b = binary.AppendVarint(b, d.deliveredAt)
			b = append(b, d.outcome)
			b = binary.AppendUvarint(b, uint64(d.attempts))
			b = binary.AppendVarint(b, d.lastAttempt)
			b = appendString(b, d.lastError)
			if checks {
				b = appendSent(b, e, d)
			}
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// errShard is a shard value this sitepush did not write, or one cut short.
var errShard = errors.New("not a catalogue shard written by this sitepush")

// decoder reads a shard. Its strings are parts of text, the shard as one string: a shard
// decodes with a handful of allocations, whatever its size, and its entries lie side by side.
type decoder struct {
	b    []byte
	text string // the whole value, b being its tail
	err  error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	at := len(d.text) - len(d.b)
	d.b = d.b[n:]
	return d.text[at : at+int(n)]
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errShard
	}
	d.b = nil
}

// decodeShard reads what encodeShard wrote, in either form.
func decodeShard(b []byte) (map[int64]*entry, error) {
	if len(b) < len(shardMagic) {
		return nil, errShard
	}
	checks := string(b[:len(shardMagicChecks)]) == shardMagicChecks
	if !checks && string(b[:len(shardMagic)]) != shardMagic {
		return nil, errShard
	}
	text := string(b)
	d := &decoder{b: b[len(shardMagic):], text: text}
	names := make([]string, min(d.uvarint(), 1024))
	for i := range names {
		names[i] = d.string()
	}
	// An entry takes 13 bytes at least, a delivery 7: the counts read are bounded by the bytes
	// left, so that a value cut short or forged allocates no more than its size.
	n := d.uvarint()
	if n > uint64(len(d.b)/13) {
		d.fail()
		n = 0
	}
	entries := make(map[int64]*entry, n)
	all := make([]entry, n)
	pool := make([]delivery, 0, min(n*uint64(len(names)), uint64(len(d.b)/7)))
	var known []pageChecks // what content checks know of the entries, side by side
	if checks {
		known = make([]pageChecks, 0, n)
	}
	for i := range all {
		if d.err != nil || len(d.b) < 8 {
			d.fail()
			break
		}
		h := int64(d.uint64())
		e := &all[i]
		*e = entry{url: d.string(), lastmod: d.varint(), firstSeen: d.varint(), lastSeen: d.varint()}
		if checks {
			d.checks(e, &known)
		}
		start := len(pool)
		for range min(d.uvarint(), 64) {
			ch := d.uvarint()
			if ch >= uint64(len(names)) {
				d.fail()
				break
			}
			pool = append(pool, delivery{channel: names[ch], lastmod: d.varint(), deliveredAt: d.varint(), outcome: d.byte(),
				attempts: int(min(d.uvarint(), math.MaxInt32)), lastAttempt: d.varint(), lastError: d.string()})
			if checks {
				pool[len(pool)-1].sent = d.sent(e)
			}
			if del := &pool[len(pool)-1]; del.outcome == outcomeSkipped { // as written before why was kept
				del.outcome, del.deliveredAt, del.attempts = outcomeBacklog, 0, 0
			}
		}
		e.del = pool[start:len(pool):len(pool)] // an entry's new delivery goes elsewhere, not over the next's
		entries[h] = e
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w (%d bytes)", d.err, len(b))
	}
	return entries, nil
}
