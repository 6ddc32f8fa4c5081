package fingerprint

import "golang.org/x/net/html/atom"

// inHead reports whether an element may stand in a page's head; any other start tag begins the
// body, as it does for a browser's parser and a search engine (a <meta> after it is not read).
func inHead(a atom.Atom) bool {
	switch a {
	case atom.Html, atom.Head, atom.Title, atom.Meta, atom.Link, atom.Base, atom.Style, atom.Script,
		atom.Noscript, atom.Template, atom.Basefont, atom.Bgsound, atom.Noframes:
		return true
	}
	return false
}

// ignoredText reports whether the text the tokenizer gives right after an element's start tag
// is not content. Scripts and styles are code. <noscript> is too, as the tokenizer gives it: raw
// markup (a tracking pixel's URL, a tag manager's iframe) shown only to the few readers without
// JavaScript, and search engines render pages with it. <iframe>, <noembed> and <noframes> hold
// fallbacks no current browser shows, and <textarea> a form field's value, like an <input>'s.
func ignoredText(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Iframe, atom.Noembed, atom.Noframes, atom.Textarea:
		return true
	}
	return false
}

// skipped reports whether everything within an element is left out: a <template>'s content is
// never shown as it stands, and an <svg>'s text is labels and drawing, not the page's prose.
func skipped(a atom.Atom) bool {
	return a == atom.Template || a == atom.Svg
}

// chrome returns which of the elements around a page's content an element is (header, nav,
// aside, footer), or -1: without <main> or <article>, the content is the body less these.
func chrome(a atom.Atom) int {
	switch a {
	case atom.Header:
		return 0
	case atom.Nav:
		return 1
	case atom.Aside:
		return 2
	case atom.Footer:
		return 3
	}
	return -1
}

// block reports whether an element's start and end separate the words around it, as the
// browser's layout does: "<p>ab</p><p>c</p>" reads "ab c", not "abc", while "<b>ab</b>c" reads
// "abc". Elements not listed (inline ones, custom elements) join their neighbours' words.
func block(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Br, atom.Button,
		atom.Caption, atom.Dd, atom.Details, atom.Dialog, atom.Div, atom.Dl, atom.Dt, atom.Fieldset,
		atom.Figcaption, atom.Figure, atom.Footer, atom.Form, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Header, atom.Hgroup, atom.Hr, atom.Img, atom.Legend, atom.Li, atom.Main,
		atom.Nav, atom.Ol, atom.Option, atom.P, atom.Pre, atom.Section, atom.Select, atom.Summary,
		atom.Table, atom.Tbody, atom.Td, atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Ul:
		return true
	}
	return false
}
