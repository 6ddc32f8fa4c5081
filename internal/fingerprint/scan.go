package fingerprint

import (
	"bytes"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// scanner follows a page token by token into its fields' hashes. It keeps counts of the open
// elements that matter, never a stack of them, so that its memory does not grow with the
// page's nesting: a million nested <div>s cost nothing. The price is that an element left
// unclosed counts as open to the end of the page, which no browser would show differently for
// the elements counted (<main>, <article> and the chrome around them are closed in practice).
type scanner struct {
	z *html.Tokenizer

	// inBody is set once the head has ended: at <body>, at a start tag a head cannot hold, or at
	// text that is not white space. Only the head's title, meta and link tags are read.
	inBody bool
	// raw is the element whose text the tokenizer gives next (script, style, title…), 0 if none.
	raw atom.Atom
	// skip is the element (<template>, <svg>) everything within which is left out, and
	// skipDepth how many of its kind are open.
	skip      atom.Atom
	skipDepth int

	main, article int    // open <main> and <article> elements
	chrome        [4]int // open <header>, <nav>, <aside> and <footer> elements
	sawMain       bool
	sawArticle    bool
	// segment counts the <div>s open within a segment React streamed after the page's shell
	// (see streamedSegment), 0 outside one.
	segment int

	title, description, canonical, robots sink
	// The three candidates for the page's text, hashed side by side since which one counts is
	// known only at the end of the page.
	mainText, articleText, restText sink
}

// newScanner returns a scanner of the tokens of z, its hashes ready.
func newScanner(z *html.Tokenizer) *scanner {
	s := &scanner{z: z}
	for _, k := range []*sink{&s.title, &s.description, &s.canonical, &s.robots, &s.mainText, &s.articleText, &s.restText} {
		k.d.Reset()
	}
	return s
}

// content returns the candidate that is the page's text: its <main> if it has one, else its
// <article>s, else its body less the chrome.
func (s *scanner) content() *sink {
	switch {
	case s.sawMain:
		return &s.mainText
	case s.sawArticle:
		return &s.articleText
	}
	return &s.restText
}

// token takes in the tokenizer's current token, of type tt. Comments and the doctype are not
// content.
func (s *scanner) token(tt html.TokenType) {
	if tt == html.TextToken {
		s.text()
		return
	}
	s.raw = 0
	switch tt {
	case html.StartTagToken, html.SelfClosingTagToken:
		s.start(tagAtom(s.z.Raw()), tt == html.SelfClosingTagToken)
	case html.EndTagToken:
		s.end(tagAtom(s.z.Raw()))
	}
}

// tagAtom returns the element a tag names, given the tag as written ("<DIV class=x>", "</div>"),
// read as the tokenizer reads it. The tokenizer's TagName would do, but it copies every name: a
// page of a million tags would allocate a million times.
func tagAtom(raw []byte) atom.Atom {
	raw = bytes.TrimPrefix(raw[1:], []byte("/"))
	var name [16]byte // more than the longest name that matters here ("blockquote")
	n := 0
	for _, c := range raw {
		if c == '/' || c == '>' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			break
		}
		if n == len(name) {
			return 0
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		name[n] = c
		n++
	}
	return atom.Lookup(name[:n])
}

// text takes in a text token. Text that counts for nothing is not asked of the tokenizer,
// which would unescape it for nothing (a page's largest tokens are often its scripts).
func (s *scanner) text() {
	switch {
	case s.skipDepth > 0, ignoredText(s.raw):
	case s.raw == atom.Title:
		if !s.inBody {
			write(s.z.Text(), &s.title)
			s.title.end()
		}
	default:
		s.bodyText()
	}
}

// bodyText hashes text of the body into the candidates it belongs to. Text before the body
// that is not white space begins it, as it does for a browser.
func (s *scanner) bodyText() {
	var in [3]*sink
	n := 0
	if s.main > 0 || s.segment > 0 {
		in[n], n = &s.mainText, n+1
	}
	if s.article > 0 || s.segment > 0 {
		in[n], n = &s.articleText, n+1
	}
	if s.chrome == [4]int{} || s.segment > 0 {
		in[n], n = &s.restText, n+1
	}
	if n == 0 && s.inBody {
		return
	}
	t := s.z.Text()
	if !s.inBody && !blank(t) {
		s.inBody = true
	}
	write(t, in[:n]...)
}

// start takes in a start tag. A self-closing tag closes only on an <svg>: in HTML, "<div/>" opens
// a div.
func (s *scanner) start(a atom.Atom, selfClosing bool) {
	s.raw = a // the tokenizer reads the text of a raw element next whether or not it self-closes
	if s.skipDepth > 0 {
		if a == s.skip && !(selfClosing && a == atom.Svg) {
			s.skipDepth++
		}
		return
	}
	if !s.inBody && (a == atom.Body || !inHead(a)) {
		s.inBody = true
	}
	if block(a) {
		s.brk()
	}
	if a == atom.Div && (s.segment > 0 || s.streamedSegment()) {
		s.segment++
	}
	switch {
	case skipped(a):
		if !(selfClosing && a == atom.Svg) {
			s.skip, s.skipDepth = a, 1
		}
	case a == atom.Meta && !s.inBody:
		s.meta()
	case a == atom.Link && !s.inBody:
		s.link()
	case a == atom.Main:
		s.main++
		s.sawMain = true
	case a == atom.Article:
		s.article++
		s.sawArticle = true
	case chrome(a) >= 0:
		s.chrome[chrome(a)]++
	}
}

// end takes in an end tag. A stray end tag closes nothing.
func (s *scanner) end(a atom.Atom) {
	if s.skipDepth > 0 {
		if a == s.skip {
			s.skipDepth--
		}
		return
	}
	if block(a) {
		s.brk()
	}
	switch {
	case a == atom.Div && s.segment > 0:
		s.segment--
	case a == atom.Main && s.main > 0:
		s.main--
	case a == atom.Article && s.article > 0:
		s.article--
	case chrome(a) >= 0 && s.chrome[chrome(a)] > 0:
		s.chrome[chrome(a)]--
	}
}

// brk separates the words before a block's boundary from those after it.
func (s *scanner) brk() {
	s.mainText.brk()
	s.articleText.brk()
	s.restText.brk()
}

// streamedSegment reports whether the current <div> start tag holds a segment React streamed
// after the page's shell (Next.js' app router, any React server rendering with Suspense): the
// text of a Suspense boundary, sent at the end of the body in a hidden <div id="S:…"> that a
// script then moves into its place, in <main> or wherever it is. Its text counts for every
// candidate: it is the page's, wherever it is sent. React writes the tag byte for byte so.
func (s *scanner) streamedSegment() bool {
	return bytes.HasPrefix(s.z.Raw(), []byte(`<div hidden id="S:`))
}
