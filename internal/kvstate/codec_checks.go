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
		if e.check != 0 || e.content != 0 || e.valid != nil {
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
	var flags byte
	if e.check != 0 {
		flags |= hasCheck
	}
	if e.content != 0 {
		flags |= hasContent
	}
	if e.valid != nil {
		flags |= hasValidators
	}
	b = append(b, flags)
	if e.check != 0 {
		b = binary.AppendVarint(b, e.check)
	}
	if e.content != 0 {
		b = binary.LittleEndian.AppendUint64(b, e.content)
	}
	if e.valid != nil {
		b = appendString(appendString(b, e.valid.ETag), e.valid.LastModified)
	}
	return b
}

// appendSent writes what a channel was sent of an entry: mostly its content, in one byte.
func appendSent(b []byte, e *entry, d delivery) []byte {
	switch d.sent {
	case 0:
		return append(b, sentNone)
	case e.content:
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

// checks reads what appendChecks wrote into e, its validators into the next of vals.
func (d *decoder) checks(e *entry, vals *[]model.Validators) {
	flags := d.byte()
	if flags&hasCheck != 0 {
		e.check = d.varint()
	}
	if flags&hasContent != 0 {
		e.content = d.uint64()
	}
	if flags&hasValidators != 0 {
		*vals = append(*vals, model.Validators{ETag: d.string(), LastModified: d.string()})
		e.valid = &(*vals)[len(*vals)-1]
	}
}

// sent reads what appendSent wrote of an entry's content.
func (d *decoder) sent(e *entry) uint64 {
	switch d.byte() {
	case sentNone:
		return 0
	case sentContent:
		return e.content
	case sentOther:
		return d.uint64()
	}
	d.fail()
	return 0
}
