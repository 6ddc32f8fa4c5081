package sitemap

import (
	"bytes"
	"fmt"
	"io"

	"github.com/sitepush/sitepush/internal/human"
)

// xmlDoc reads one XML sitemap, RSS or Atom document and hands each complete entry to emit.
// Entries are recognised by position and local name, whatever namespace the root declares:
// fields count only as direct children of an entry and with the root's prefix (or none), so
// extension elements such as <image:loc> or <xhtml:link> are never taken for page URLs.
type xmlDoc struct {
	lx   *lexer
	kind Kind
	emit func(*entry) error

	rootPrefix []byte
	entryName  string
	tags       fastTags
	// slow turns the fast paths off, for tests that compare both.
	slow       bool
	depth      int
	entryDepth int // depth of the open entry element, 0 outside entries
	field      slot
	fieldRank  int
	fieldDepth int
	// val is the open field's text so far; valUndecoded says it holds a reference that could not
	// be decoded.
	val          []byte
	valUndecoded bool

	f         fields
	out       entry
	scratch   [2][]byte // the loc and the lastmod the fast path decoded
	truncated bool
	// cutKept says the entry the end cut was kept (see eof); cutUndated, that it was kept
	// without a date.
	cutKept, cutUndated bool
}

// slot says where a field's text goes.
type slot int

const (
	slotNone slot = iota
	slotLoc
	slotGuid
	slotLastmod
)

// run reads the document to its end. A document that ends before its root element closes is
// not an error: every entry seen whole has been emitted (see eof), and truncated says it happened.
func (d *xmlDoc) run() error {
	if err := d.root(); err != nil || d.depth == 0 {
		return err
	}
	for {
		switch d.lx.next(d.field != slotNone) {
		case tokText:
			d.val = append(d.val, d.lx.text()...)
			d.valUndecoded = d.valUndecoded || d.lx.textUndecoded
		case tokStart:
			if err := d.start(); err != nil {
				return err
			}
		case tokEnd:
			if err := d.end(); err != nil {
				return err
			}
			if d.depth == 0 {
				return nil
			}
		case tokEOF:
			return d.eof()
		}
	}
}

// root skips the prolog and identifies the document by its root element.
func (d *xmlDoc) root() error {
	for {
		switch d.lx.next(false) {
		case tokEOF:
			if err := d.lx.err; err != io.EOF {
				return err
			}
			return notSitemap("the document has no root element")
		case tokStart:
			name := string(d.lx.local())
			switch name {
			case "urlset":
				d.kind, d.entryName = KindURLSet, "url"
			case "sitemapindex":
				d.kind, d.entryName = KindIndex, "sitemap"
			case "rss", "RDF":
				d.kind, d.entryName = KindRSS, "item"
			case "feed":
				d.kind, d.entryName = KindAtom, "entry"
			default:
				if bytes.EqualFold(d.lx.local(), []byte("html")) {
					return notSitemap("got an HTML page")
				}
				return notSitemap(fmt.Sprintf("the root element is <%s>, not <urlset>, <sitemapindex>, <rss> or <feed>", human.Clip(name, 40)))
			}
			d.rootPrefix = append([]byte(nil), d.lx.prefix()...)
			d.tags = newFastTags(string(d.rootPrefix), d.entryName)
			if !d.lx.selfClosing {
				d.depth = 1
			}
			return nil
		}
	}
}

// ours reports whether the current tag is in the document's own vocabulary.
func (d *xmlDoc) ours() bool {
	return len(d.lx.prefix()) == 0 || bytes.Equal(d.lx.prefix(), d.rootPrefix)
}

func (d *xmlDoc) start() error {
	lx := d.lx
	elem := d.depth + 1
	if !lx.selfClosing {
		d.depth = elem
	}
	switch {
	case d.entryDepth == 0:
		if string(lx.local()) == d.entryName && d.ours() && !lx.selfClosing {
			d.entryDepth = elem
			d.f.reset()
			if (d.kind == KindURLSet || d.kind == KindIndex) && !d.slow {
				return d.fastEntry()
			}
		}
	case d.field == slotNone && elem == d.entryDepth+1:
		if d.kind == KindAtom && string(lx.local()) == "link" && d.ours() {
			d.atomLink()
			return nil
		}
		if lx.selfClosing {
			return nil
		}
		d.field, d.fieldRank = d.fieldOf()
		d.fieldDepth = elem
		d.val, d.valUndecoded = d.val[:0], false
	}
	return nil
}

// fieldOf maps an entry's child element to the slot its text fills, with a rank that decides
// between several date elements (Atom's <updated> beats <published>, RSS's pubDate beats dc:date).
func (d *xmlDoc) fieldOf() (slot, int) {
	lx := d.lx
	name := lx.local()
	if !d.ours() {
		if d.kind == KindRSS && string(name) == "date" {
			return slotLastmod, 1
		}
		return slotNone, 0
	}
	switch d.kind {
	case KindURLSet, KindIndex:
		switch string(name) {
		case "loc":
			return slotLoc, 0
		case "lastmod":
			return slotLastmod, 2
		}
	case KindRSS:
		switch string(name) {
		case "link":
			return slotLoc, 0
		case "guid":
			if v, ok, _ := lx.attr("isPermaLink"); ok && string(trimSpace(v)) == "false" {
				return slotNone, 0
			}
			return slotGuid, 0
		case "pubDate":
			return slotLastmod, 2
		}
	case KindAtom:
		switch string(name) {
		case "updated":
			return slotLastmod, 2
		case "published":
			return slotLastmod, 1
		}
	}
	return slotNone, 0
}

// atomLink takes the entry's URL from <link href> with no rel or rel="alternate".
func (d *xmlDoc) atomLink() {
	if len(d.f.locEnds) > 0 {
		return
	}
	if rel, ok, _ := d.lx.attr("rel"); ok && string(trimSpace(rel)) != "alternate" {
		return
	}
	if href, ok, decoded := d.lx.attr("href"); ok {
		if v := trimSpace(href); len(v) > 0 {
			d.f.addLoc(v, !decoded)
		}
	}
}

func (d *xmlDoc) end() error {
	if d.field != slotNone && d.depth == d.fieldDepth {
		d.commit()
	}
	d.depth--
	if d.entryDepth != 0 && d.depth < d.entryDepth {
		d.entryDepth = 0
		d.f.fill(&d.out)
		return d.emit(&d.out)
	}
	return nil
}

// commit stores the text of the field that just closed.
func (d *xmlDoc) commit() {
	v := trimSpace(d.val)
	switch d.field {
	case slotLoc:
		// Every <loc> of a sitemap entry counts; a feed item has one link.
		if len(v) > 0 && (len(d.f.locEnds) == 0 || d.kind == KindURLSet || d.kind == KindIndex) {
			d.f.addLoc(v, d.valUndecoded)
		}
	case slotGuid:
		d.f.guid, d.f.guidUndecoded = append(d.f.guid[:0], v...), d.valUndecoded
	case slotLastmod:
		d.f.setLastmod(v, d.valUndecoded, d.fieldRank)
	}
	d.field = slotNone
}

// eof ends a document whose input stopped before the root element closed. The entry it cut is
// kept when one of its URLs closed — a closed <loc> is whole, as other readers take it, in an
// index as in a urlset — with its date only when that closed too and nothing after it could have
// outranked it (an Atom <updated> beats <published>); a guid alone is not kept, as a <link> may
// have been what was cut.
func (d *xmlDoc) eof() error {
	if err := d.lx.err; err != io.EOF {
		return err
	}
	d.truncated = true
	if d.entryDepth == 0 || len(d.f.locEnds) == 0 {
		return nil
	}
	d.entryDepth = 0
	if d.f.lastmodRank < 2 {
		d.f.lastmod = d.f.lastmod[:0]
	}
	d.cutKept, d.cutUndated = true, len(d.f.lastmod) == 0
	d.f.fill(&d.out)
	return d.emit(&d.out)
}

// cutKeeps says what a document cut off kept of its n entries, for the warning that it was cut.
func (d *xmlDoc) cutKeeps(n int) string {
	if d.kind == KindIndex {
		if n == 1 {
			return "the 1 sitemap whose <loc> arrived whole is read"
		}
		return fmt.Sprintf("the %d sitemaps whose <loc> arrived whole are read", n)
	}
	kept := fmt.Sprintf("the %d entries whose URL arrived whole are kept", n)
	if n == 1 {
		kept = "the 1 entry whose URL arrived whole is kept"
	}
	if d.cutKept && d.cutUndated {
		kept += ", the last one, cut inside its entry, without a lastmod"
	}
	return kept
}
