package kvstate

import (
	"encoding/binary"

	"github.com/sitepush/sitepush/internal/model"
)

// The flags of an entry of a shard written with what content checks found (shardMagicChecks,
// codec.go): which of its fields follow.
const (
	hasCheck      byte = 1 << iota // its place in the rotation, a varint
	hasContent                     // its content, 8 bytes
	hasValidators                  // its ETag and Last-Modified, two strings
)

// What a record of a channel of a shard with checks says of the content sent.
const (
	sentNone byte = iota
	sentContent
	sentOther
)

// withChecks reports whether any of entries holds what content checks found: its shard is
// written in the form with checks.
func withChecks(entries map[int64]*entry) bool {
	for _, e := range entries {
		if e.checks != nil && *e.checks != (pageChecks{}) {
			return true
		}
		for _, d := range e.del {
			if d.sent != 0 {
				return true
			}
		}
	}
	return false
}

// appendChecks writes what content checks found of an entry: its flags, then the fields they name.
func appendChecks(b []byte, e *entry) []byte {
	var k pageChecks
	if e.checks != nil {
		k = *e.checks
	}
	var flags byte
	if k.place != 0 {
		flags |= hasCheck
	}
	if k.content != 0 {
		flags |= hasContent
	}
	if k.valid != (model.Validators{}) {
		flags |= hasValidators
	}
	b = append(b, flags)
	if k.place != 0 {
		b = binary.AppendVarint(b, k.place)
	}
	if k.content != 0 {
		b = binary.LittleEndian.AppendUint64(b, k.content)
	}
	if k.valid != (model.Validators{}) {
		b = appendString(appendString(b, k.valid.ETag), k.valid.LastModified)
	}
	return b
}

// appendSent writes what a channel was sent of an entry: mostly its content, in one byte.
func appendSent(b []byte, e *entry, d delivery) []byte {
	switch d.sent {
	case 0:
		return append(b, sentNone)
	case e.content():
		return append(b, sentContent)
	}
	return binary.LittleEndian.AppendUint64(append(b, sentOther), d.sent)
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// checks reads what appendChecks wrote into e: what content checks know of it goes to the next
// of pool, when they know something.
func (d *decoder) checks(e *entry, pool *[]pageChecks) {
	flags := d.byte()
	if flags == 0 {
		return
	}
	var k pageChecks
	if flags&hasCheck != 0 {
		k.place = d.varint()
	}
	if flags&hasContent != 0 {
		k.content = d.uint64()
	}
	if flags&hasValidators != 0 {
		k.valid = model.Validators{ETag: d.string(), LastModified: d.string()}
	}
	*pool = append(*pool, k)
	e.checks = &(*pool)[len(*pool)-1]
}

// sent reads what appendSent wrote of an entry's content.
func (d *decoder) sent(e *entry) uint64 {
	switch d.byte() {
	case sentNone:
		return 0
	case sentContent:
		return e.content()
	case sentOther:
		return d.uint64()
	}
	d.fail()
	return 0
}
