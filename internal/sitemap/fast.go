package sitemap

import "bytes"

// fastTags are the tags of a sitemap entry as written, with the root's namespace prefix.
type fastTags struct {
	entryEnd                  []byte // "</url>"
	locOpen, locClose         []byte
	lastmodOpen, lastmodClose []byte
	// stops are the beginnings of the tags an entry's remaining children are not skipped over:
	// another entry ("<url"), which would nest, and another URL ("<loc", with the root's prefix
	// and without, as the token path takes both), which must be read.
	stops stopTags
}

// stopTags are tags skipTo must not pass over. first marks the bytes they have after their "<",
// so that the tags skipped over, nearly all of them, cost one lookup each.
type stopTags struct {
	tags  [][]byte
	first [256]bool
}

func newStopTags(tags ...[]byte) stopTags {
	s := stopTags{tags: tags}
	for _, t := range tags {
		s.first[t[1]] = true
	}
	return s
}

// at reports whether b begins with one of the tags.
func (s *stopTags) at(b []byte) bool {
	if !s.first[b[1]] {
		return false
	}
	for _, t := range s.tags {
		if bytes.HasPrefix(b, t) {
			return true
		}
	}
	return false
}

func newFastTags(prefix, entry string) fastTags {
	if prefix != "" {
		prefix += ":"
	}
	tag := func(s string) []byte { return []byte(s) }
	t := fastTags{
		entryEnd: tag("</" + prefix + entry + ">"),
		locOpen:  tag("<" + prefix + "loc>"), locClose: tag("</" + prefix + "loc>"),
		lastmodOpen: tag("<" + prefix + "lastmod>"), lastmodClose: tag("</" + prefix + "lastmod>"),
	}
	stops := [][]byte{tag("<" + prefix + entry), tag("<" + prefix + "loc")}
	if prefix != "" {
		stops = append(stops, tag("<loc"))
	}
	t.stops = newStopTags(stops...)
	return t
}

// fastEntry reads a sitemap entry written the way nearly every generator writes it — <loc>, then
// <lastmod>, each holding plain text, then anything but a comment or another <loc> — straight
// from the buffer, and emits it, skipping the entry's other children. It is called just after the entry's start
// tag. Whatever it does not recognise (a CDATA value, a comment, lastmod first, an entry cut by
// the end of the buffer) it leaves for the token-by-token path, which handles everything: the
// result is the same either way, at a third of the cost.
func (d *xmlDoc) fastEntry() error {
	lx := d.lx
	buf := lx.buf[:lx.end]
	raw, p, ok := fastField(buf, lx.pos, d.tags.locOpen, d.tags.locClose)
	if !ok {
		return nil
	}
	loc, locUndecoded := value(raw, &d.scratch[0])
	if len(loc) == 0 {
		return nil
	}
	var lastmod []byte
	lastmodUndecoded := false
	raw, p2, ok := fastField(buf, p, d.tags.lastmodOpen, d.tags.lastmodClose)
	if ok {
		lastmod, lastmodUndecoded = value(raw, &d.scratch[1])
	}
	if len(lastmod) == 0 {
		d.f.addLoc(loc, locUndecoded)
		lx.pos = p
		return nil
	}
	lx.pos = p2
	if !lx.skipTo(d.tags.entryEnd, &d.tags.stops) {
		d.f.addLoc(loc, locUndecoded)
		d.f.setLastmod(lastmod, lastmodUndecoded, 2)
		return nil
	}
	// The entry is whole: close it here, as its end tag would.
	lx.pos += len(d.tags.entryEnd)
	d.depth--
	d.entryDepth = 0
	e := &d.out
	e.locs, e.undecoded = append(e.locs[:0], loc), append(e.undecoded[:0], locUndecoded)
	e.lastmod, e.lastmodUndecoded = lastmod, lastmodUndecoded
	return d.emit(e)
}

// value returns a field's text as the token path stores it, trimmed and decoded, and whether it
// holds a reference that could not be decoded; it is decoded into *scratch only when it holds a
// reference.
func value(raw []byte, scratch *[]byte) ([]byte, bool) {
	raw = trimSpace(raw)
	if bytes.IndexByte(raw, '&') < 0 {
		return raw, false
	}
	var ok bool
	*scratch, ok = appendUnescaped((*scratch)[:0], raw)
	return trimSpace(*scratch), !ok
}

// fastField reads `open text close` at buf[p:], after optional whitespace, where text holds no
// markup. It returns the raw text and the position after close.
func fastField(buf []byte, p int, open, close []byte) ([]byte, int, bool) {
	for p < len(buf) && isSpace(buf[p]) {
		p++
	}
	if !bytes.HasPrefix(buf[p:], open) {
		return nil, 0, false
	}
	p += len(open)
	i := bytes.IndexByte(buf[p:], '<')
	if i < 0 || !bytes.HasPrefix(buf[p+i:], close) {
		return nil, 0, false
	}
	return buf[p : p+i], p + i + len(close), true
}
