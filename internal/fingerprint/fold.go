package fingerprint

import (
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// sink hashes one field's text with its white space folded, as it streams by: a run of white
// space between two words becomes one space, white space at either end none.
type sink struct {
	d       xxhash.Digest
	started bool // text was written since the last end
	space   bool // white space came since the last text
}

// brk notes white space, or a boundary that reads as white space.
func (k *sink) brk() {
	k.space = k.started
}

// folded hashes text already folded by fold: single spaces, at most one at either end.
func (k *sink) folded(f []byte) {
	if len(f) > 0 && f[0] == ' ' {
		k.brk()
		f = f[1:]
	}
	trailing := len(f) > 0 && f[len(f)-1] == ' '
	if trailing {
		f = f[:len(f)-1]
	}
	if len(f) > 0 {
		if k.space {
			_, _ = k.d.WriteString(" ")
			k.space = false
		}
		_, _ = k.d.Write(f)
		k.started = true
	}
	if trailing {
		k.brk()
	}
}

// end closes one value of a field that may have several (two meta descriptions): a byte that
// UTF-8 text never holds keeps "ab", "c" apart from "a", "bc".
func (k *sink) end() {
	_, _ = k.d.WriteString("\xff")
	k.started, k.space = false, false
}

// write hashes the folded text of t into each of sinks, folding it once whatever their number,
// through a buffer on the stack.
func write(t []byte, sinks ...*sink) {
	var buf [1024]byte
	for len(t) > 0 {
		f, n := fold(buf[:], t)
		for _, k := range sinks {
			k.folded(f)
		}
		t = t[n:]
	}
}

// fold copies as much of src as dst can take with each run of white space turned into one
// space, and returns the copy and the length of src it took. White space is Unicode's: no-break
// spaces (&nbsp;) and ideographic spaces fold too.
func fold(dst, src []byte) ([]byte, int) {
	n, i := 0, 0
	for i < len(src) && n <= len(dst)-utf8.UTFMax {
		c := src[i]
		if c < utf8.RuneSelf && !asciiSpace(c) {
			dst[n] = c
			n, i = n+1, i+1
			continue
		}
		if w := isSpace(src[i:]); w > 0 {
			if n == 0 || dst[n-1] != ' ' {
				dst[n] = ' '
				n++
			}
			i += w
			continue
		}
		_, w := utf8.DecodeRune(src[i:])
		n += copy(dst[n:], src[i:i+w])
		i += w
	}
	return dst[:n], i
}

// blank reports whether t is only white space.
func blank(t []byte) bool {
	for i := 0; i < len(t); {
		w := isSpace(t[i:])
		if w == 0 {
			return false
		}
		i += w
	}
	return true
}

// isSpace returns the length of the white space character that starts t, 0 if it is none.
func isSpace(t []byte) int {
	if c := t[0]; c < utf8.RuneSelf {
		if asciiSpace(c) {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRune(t)
	if unicode.IsSpace(r) {
		return n
	}
	return 0
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
