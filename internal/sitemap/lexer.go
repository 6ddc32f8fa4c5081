package sitemap

import (
	"bytes"
	"errors"
	"io"
)

// The lexer splits XML into the few tokens a sitemap reader needs. It is written by hand, over its
// own read buffer, because encoding/xml allocates for every token and costs ~25× more per URL;
// sitemaps run to millions of URLs. It is lenient where crawlers must be: it never validates
// nesting, and skips comments, processing instructions and DOCTYPEs wherever they appear.
// The current token is kept as offsets into the buffer, not as slices, so that recognising a
// tag writes no pointers (and so costs the garbage collector nothing).

const (
	lexBufSize = 64 << 10
	// lexMaxToken bounds one tag or one wanted text value; beyond it the document is not a sitemap.
	lexMaxToken = 1 << 20
)

type tokKind int

const (
	tokEOF tokKind = iota
	tokStart
	tokEnd
	tokText
)

var errTokenTooLong = errors.New("a single tag or value is longer than 1 MiB")

type lexer struct {
	r   io.Reader
	buf []byte
	pos int   // next unread byte
	end int   // end of the data read so far
	err error // the read error that ended the input, io.EOF at a clean end

	// The current token, valid until the next call of next. A tag's qualified name is
	// buf[nameLo:nameHi], with its prefix ending at colon (-1 when there is none), and its raw
	// attributes are buf[attrLo:attrHi]. Text is buf[textLo:textHi], or scratch when it had to be
	// decoded; textUndecoded says it holds a reference that could not be (see appendUnescaped).
	nameLo, nameHi, colon int
	attrLo, attrHi        int
	selfClosing           bool
	textLo, textHi        int
	textDecoded           bool
	textUndecoded         bool
	scratch               []byte
}

func newLexer(r io.Reader) *lexer {
	return &lexer{r: r, buf: make([]byte, lexBufSize)}
}

func (l *lexer) local() []byte  { return l.buf[l.colon+1 : l.nameHi] }
func (l *lexer) prefix() []byte { return l.buf[l.nameLo:max(l.colon, l.nameLo)] }

func (l *lexer) text() []byte {
	if l.textDecoded {
		return l.scratch
	}
	return l.buf[l.textLo:l.textHi]
}

// fill reads more input after the unread bytes, first moving them to the front of the buffer.
// It reports false when no more input will come; l.err then says why. Offsets relative to
// l.pos stay valid across a fill; absolute ones do not.
func (l *lexer) fill() bool {
	if l.err != nil {
		return false
	}
	if l.pos > 0 {
		l.end = copy(l.buf, l.buf[l.pos:l.end])
		l.pos = 0
	}
	if l.end == len(l.buf) {
		if len(l.buf) >= lexMaxToken {
			l.err = errTokenTooLong
			return false
		}
		nb := make([]byte, 2*len(l.buf))
		copy(nb, l.buf[:l.end])
		l.buf = nb
	}
	for {
		n, err := l.r.Read(l.buf[l.end:])
		l.end += n
		if err != nil {
			l.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// find returns the offset from l.pos of the first sep at or after offset from, reading (and
// holding) more input as needed; -1 when the input ends first.
func (l *lexer) find(sep []byte, from int) int {
	for {
		if i := bytes.Index(l.buf[l.pos+from:l.end], sep); i >= 0 {
			return from + i
		}
		if n := l.end - l.pos - len(sep) + 1; n > from {
			from = n
		}
		if !l.fill() {
			return -1
		}
	}
}

// skipPast discards input up to and including sep without holding it in memory.
func (l *lexer) skipPast(sep []byte) bool {
	for {
		if i := bytes.Index(l.buf[l.pos:l.end], sep); i >= 0 {
			l.pos += i + len(sep)
			return true
		}
		if keep := l.end - len(sep) + 1; keep > l.pos {
			l.pos = keep
		}
		if !l.fill() {
			return false
		}
	}
}

// next returns the next start tag, end tag or, when wantText, piece of text. Text that is not
// wanted is skipped without being held in memory. A value may come as several text tokens
// (text, CDATA, text); the caller joins them. The common tokens — end tags, and start tags
// without attributes — are read right here; everything else goes through markup.
func (l *lexer) next(wantText bool) tokKind {
	scanned := 0
	for {
		buf := l.buf[:l.end]
		i := bytes.IndexByte(buf[l.pos+scanned:], '<')
		if i < 0 {
			if wantText {
				scanned = l.end - l.pos
			} else {
				l.pos = l.end
			}
			if !l.fill() {
				return tokEOF
			}
			continue
		}
		i += l.pos + scanned
		if wantText && i > l.pos {
			l.setText(l.pos, i, true)
			l.pos = i
			return tokText
		}
		l.pos, scanned = i, 0
		if i+1 < len(buf) {
			if c := buf[i+1]; c == '/' {
				if j := bytes.IndexByte(buf[i+2:], '>'); j >= 0 {
					l.pos = i + 3 + j
					return tokEnd
				}
			} else if isNameStart(c) && l.scanTag() {
				return tokStart
			}
		}
		k, ok := l.markup(wantText)
		if !ok {
			return tokEOF
		}
		if k != tokEOF {
			return k
		}
	}
}

// setText makes buf[lo:hi] the current text, decoding references when decode is set.
func (l *lexer) setText(lo, hi int, decode bool) {
	l.textLo, l.textHi, l.textDecoded, l.textUndecoded = lo, hi, false, false
	if s := l.buf[lo:hi]; decode && bytes.IndexByte(s, '&') >= 0 {
		var ok bool
		l.scratch, ok = appendUnescaped(l.scratch[:0], s)
		l.textDecoded, l.textUndecoded = true, !ok
	}
}

// markup reads the construct that starts at the '<' under l.pos. It returns tokEOF with ok true
// for constructs that are skipped, and ok false when the input ends inside the construct.
func (l *lexer) markup(wantText bool) (tokKind, bool) {
	for l.end-l.pos < 2 {
		if !l.fill() {
			return tokEOF, false
		}
	}
	switch c := l.buf[l.pos+1]; {
	case c == '/':
		return tokEnd, l.endTag()
	case c == '?':
		return tokEOF, l.skipPast(piEnd)
	case c == '!':
		return l.bang(wantText)
	case isNameStart(c):
		return tokStart, l.tag()
	}
	// A bare '<' in text, as careless generators write: not markup.
	l.pos++
	return tokEOF, true
}

var (
	piEnd        = []byte("?>")
	commentStart = []byte("<!--")
	commentEnd   = []byte("-->")
	cdataStart   = []byte("<![CDATA[")
	cdataEnd     = []byte("]]>")
)

// bang reads a comment, a CDATA section or a DOCTYPE (all begin with "<!").
func (l *lexer) bang(wantText bool) (tokKind, bool) {
	for l.end-l.pos < len(cdataStart) {
		if !l.fill() {
			break
		}
	}
	rest := l.buf[l.pos:l.end]
	switch {
	case bytes.HasPrefix(rest, commentStart):
		l.pos += len(commentStart)
		return tokEOF, l.skipPast(commentEnd)
	case bytes.HasPrefix(rest, cdataStart):
		l.pos += len(cdataStart)
		if !wantText {
			return tokEOF, l.skipPast(cdataEnd)
		}
		j := l.find(cdataEnd, 0)
		if j < 0 {
			return tokEOF, false
		}
		l.setText(l.pos, l.pos+j, false)
		l.pos += j + len(cdataEnd)
		return tokText, true
	default:
		return tokEOF, l.skipDoctype()
	}
}

// skipTo moves to the next endTag (such as "</url>") when what comes before it in the buffer is
// plain markup: no comment, CDATA section or processing instruction, which could hide or fake
// it, and no tag that begins with one of stops (such as "<url", which would nest another entry,
// or "<loc", which would be a field to read). Otherwise it stays put and the caller reads on
// token by token. It skips an entry's remaining children (changefreq, priority, image and
// hreflang blocks) once its URL and date are known: half of a typical sitemap's tags. It
// reports whether it moved.
func (l *lexer) skipTo(endTag []byte, stops *stopTags) bool {
	buf := l.buf[:l.end]
	// Tags are told apart by the byte after "</" or "<" before comparing them whole: most tags
	// passed over differ there.
	endAt := endTag[2]
	for p := l.pos; ; p++ {
		i := bytes.IndexByte(buf[p:], '<')
		if i < 0 {
			return false
		}
		p += i
		if len(buf)-p < len(endTag) {
			return false
		}
		switch c := buf[p+1]; c {
		case '/':
			if buf[p+2] == endAt && bytes.HasPrefix(buf[p:], endTag) {
				l.pos = p
				return true
			}
		case '!', '?':
			return false
		default:
			if stops.at(buf[p:]) {
				return false
			}
		}
	}
}

// skipDoctype skips "<!DOCTYPE …>" including an internal subset in brackets, which may itself
// contain '>' characters.
func (l *lexer) skipDoctype() bool {
	depth := 0
	for {
		for i := l.pos; i < l.end; i++ {
			switch l.buf[i] {
			case '[':
				depth++
			case ']':
				depth--
			case '>':
				if depth <= 0 {
					l.pos = i + 1
					return true
				}
			}
		}
		l.pos = l.end
		if !l.fill() {
			return false
		}
	}
}

// nameClass sorts the bytes of a tag name: most continue it, a few end it, and the colon
// separates its prefix.
var nameClass = [256]uint8{' ': nameEnd, '\t': nameEnd, '\n': nameEnd, '\r': nameEnd, '/': nameEnd, '>': nameEnd, ':': nameColon}

const (
	nameByte uint8 = iota
	nameEnd
	nameColon
)

// tag parses a start tag through its closing '>', which is searched for outside quoted
// attribute values. A tag cut by the end of the buffer is parsed again from its start once
// more input is in: tags are short.
func (l *lexer) tag() bool {
	for {
		if l.scanTag() {
			return true
		}
		if !l.fill() {
			return false
		}
	}
}

// endTag skips an end tag. Its name is not needed: the reader tracks elements by depth.
func (l *lexer) endTag() bool {
	for {
		if j := bytes.IndexByte(l.buf[l.pos+2:l.end], '>'); j >= 0 {
			l.pos += j + 3
			return true
		}
		if !l.fill() {
			return false
		}
	}
}

// scanTag parses the start tag at l.pos if it is wholly in the buffer.
func (l *lexer) scanTag() bool {
	buf := l.buf[:l.end]
	start := l.pos + 1
	i, colon := start, start-1
	for i < len(buf) {
		k := nameClass[buf[i]]
		if k == nameByte {
			i++
			continue
		}
		if k != nameColon {
			break
		}
		if colon < start {
			colon = i
		}
		i++
	}
	if i >= len(buf) {
		return false
	}
	l.nameLo, l.nameHi, l.colon = start, i, colon
	if buf[i] == '>' {
		l.attrLo, l.attrHi, l.selfClosing = i, i, false
		l.pos = i + 1
		return true
	}
	quote := byte(0)
	for j := i; j < len(buf); j++ {
		switch c := buf[j]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			l.selfClosing = buf[j-1] == '/'
			l.attrLo, l.attrHi = i, j
			l.pos = j + 1
			return true
		}
	}
	return false
}

// attr returns the decoded value of the named attribute of the current start tag, and whether
// every reference in it could be decoded.
func (l *lexer) attr(name string) (val []byte, found, decoded bool) {
	a := l.buf[l.attrLo:l.attrHi]
	for len(a) > 0 {
		a = bytes.TrimLeft(a, " \t\r\n")
		eq := bytes.IndexByte(a, '=')
		if eq < 0 {
			return nil, false, false
		}
		key := bytes.TrimRight(a[:eq], " \t\r\n")
		a = bytes.TrimLeft(a[eq+1:], " \t\r\n")
		if len(a) == 0 || (a[0] != '"' && a[0] != '\'') {
			return nil, false, false
		}
		end := bytes.IndexByte(a[1:], a[0])
		if end < 0 {
			return nil, false, false
		}
		val := a[1 : 1+end]
		a = a[end+2:]
		if string(key) == name {
			if bytes.IndexByte(val, '&') < 0 {
				return val, true, true
			}
			l.scratch, decoded = appendUnescaped(l.scratch[:0], val)
			return l.scratch, true, decoded
		}
	}
	return nil, false, false
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= 0x80
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}
