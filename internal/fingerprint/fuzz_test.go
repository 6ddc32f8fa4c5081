package fingerprint

import (
	"bytes"
	"testing"
	"testing/iotest"
)

// malformed are pages as broken as the web serves them.
var malformed = []string{
	"",
	"just text, no tags at all",
	"<html><head><title>unclosed title",
	"<main><p>unclosed main and paragraph",
	"</main></article></aside></footer></svg></template></div>",
	"<body></main><main>after a stray end</main>",
	"<header><nav>unclosed nav</header><p>the rest",
	"<script>never closed; var x = '<main>';",
	"<style>p{} <!-- </style",
	"<svg><svg><svg>unbalanced</svg>",
	"<template><template><p>in templates",
	"<!-- comment never closed <main>x</main>",
	`<meta name="description" content="unterminated`,
	`<link rel=canonical href=`,
	"<div hidden id=\"S:0\"><div>segment never closed",
	"<a href='x'<b>tag in tag</b></a>",
	"<\x00main>\x00<title>\x00</title>",
	"\xff\xfe\x00<\x00m\x00",
	"<meta charset=\"x-unknown\"><p>\x80\x81\xfe",
	"<plaintext><main>everything is text",
	"<p>a</p><textarea><main>b</main>",
}

// TestMalformed: broken markup is read to its end without a panic or an error.
func TestMalformed(t *testing.T) {
	for _, page := range malformed {
		if _, err := Of(bytes.NewReader([]byte(page)), ""); err != nil {
			t.Errorf("Of(%q): %v", page, err)
		}
	}
}

// FuzzOf feeds arbitrary bytes to Of. It must never panic, and the fingerprint must not depend on
// how the reader cuts the page. The seeds run with the normal tests; `go test -fuzz FuzzOf`
// explores further.
func FuzzOf(f *testing.F) {
	for _, name := range fixtures {
		f.Add([]byte(fixture(f, name)), "")
	}
	for _, page := range malformed {
		f.Add([]byte(page), "text/html; charset=windows-1252")
	}
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), "") // a gzip header and nothing more
	f.Fuzz(func(t *testing.T, page []byte, contentType string) {
		whole, errWhole := Of(bytes.NewReader(page), contentType)
		cut, errCut := Of(iotest.OneByteReader(bytes.NewReader(page)), contentType)
		if whole != cut || (errWhole == nil) != (errCut == nil) {
			t.Fatalf("whole: %x, %v; a byte at a time: %x, %v", whole, errWhole, cut, errCut)
		}
	})
}
