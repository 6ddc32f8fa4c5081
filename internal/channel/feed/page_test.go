package feed

import (
	"strings"
	"testing"

	"golang.org/x/net/html/charset"
)

func TestReadHead(t *testing.T) {
	tests := []struct {
		name, html, ct string
		want           page
	}{
		{"title and description", `<!doctype html><html><head><meta charset=utf-8><title> Hello
			 world </title><meta name="description" content="About &amp; more"></head><body><title>no</title></body></html>`, "text/html",
			page{"Hello world", "About & more"}},
		{"og:title wins, og:description stands in", `<head><title>Post | Site</title><meta property="og:title" content="Post">` +
			`<meta property="og:description" content="Summary"></head>`, "text/html", page{"Post", "Summary"}},
		{"meta description wins over og", `<head><meta property="og:description" content="og"><meta name="Description" content="meta"></head>`, "text/html",
			page{"", "meta"}},
		{"only the first title", `<head><title>One</title><title>Two</title></head>`, "text/html", page{"One", ""}},
		{"stops at the body", `<html><body><h1>x</h1><meta name="description" content="late"></body></html>`, "text/html", page{}},
		{"a declared charset", "<head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"><title>Caf\xe9</title></head>", "text/html",
			page{"Café", ""}},
		{"the header's charset", "<head><title>Caf\xe9</title></head>", "text/html; charset=windows-1252", page{"Café", ""}},
		{"self-closing metas", `<head><meta property="og:title" content="X"/><meta name="description" content="Y"/></head>`, "application/xhtml+xml",
			page{"X", "Y"}},
	}
	for _, tc := range tests {
		r, err := charset.NewReader(strings.NewReader(tc.html), tc.ct)
		if err != nil {
			t.Fatal(err)
		}
		if got := readHead(r); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestTitleFromURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.example/blog/my-first-post/":     "My first post",
		"https://a.example/blog/my_first_post":      "My first post",
		"https://a.example/about.html":              "About",
		"https://a.example/":                        "a.example",
		"https://a.example":                         "a.example",
		"https://a.example/p/caf%C3%A9-au-lait?x=1": "Café au lait",
		"https://a.example/2024/05/06/":             "06",
		"https://a.example/---/":                    "a.example",
		"https://a.example/v1.2.3":                  "V1.2",
	} {
		if got := titleFromURL(in); got != want {
			t.Errorf("titleFromURL(%q) = %q, want %q", in, got, want)
		}
	}
}
