package feed

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestReadHead(t *testing.T) {
	long := strings.Repeat("<!-- padding -->", 100)
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
		{"stops where the head ends without saying so", `<title>T</title><svg><title>icon-close</title></svg><meta name="description" content="late">`,
			"text/html", page{"T", ""}},
		{"an svg title is no title", `<html><svg><title>icon-close</title></svg><title>Real</title>`, "text/html", page{}},
		{"a declared charset", "<head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"><title>Caf\xe9</title></head>", "text/html",
			page{"Café", ""}},
		{"the header's charset", "<head><title>Caf\xe9</title></head>", "text/html; charset=windows-1252", page{"Café", ""}},
		{"a charset declared late", "<head>" + long + "<meta charset=\"iso-8859-1\"><title>Caf\xe9</title></head>", "text/html", page{"Café", ""}},
		{"UTF-8 without a declaration", "<head>" + long + "<title>Café crème</title></head>", "text/html", page{"Café crème", ""}},
		{"self-closing metas", `<head><meta property="og:title" content="X"/><meta name="description" content="Y"/></head>`, "application/xhtml+xml",
			page{"X", "Y"}},
		{"a long title is cut", "<title>" + strings.Repeat("word ", 100) + "</title>", "text/html",
			page{strings.TrimSpace(strings.Repeat("word ", 60)[:maxTitle-1]) + "…", ""}},
	}
	for _, tc := range tests {
		head := []byte(tc.html)
		text, err := encodingOf(head, tc.ct).NewDecoder().Bytes(head)
		if err != nil {
			t.Fatal(err)
		}
		if got := readHead(bytes.NewReader(text)); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// chunked reads one byte at a time, as a slow server sends.
type chunked struct{ r *strings.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p[:1]) }

func TestReadUntilBody(t *testing.T) {
	page := "<head><title>x</title></HEAD><body>" + strings.Repeat("x", 1<<20)
	got, err := readUntilBody(chunked{strings.NewReader(page)})
	if err != nil || !strings.HasSuffix(string(got), "</HEAD") {
		t.Errorf("read %d bytes ending %q, %v", len(got), got[max(0, len(got)-10):], err)
	}
	got, _ = readUntilBody(strings.NewReader(strings.Repeat("y", 1<<20)))
	if len(got) != maxHead {
		t.Errorf("a page without a head end: read %d bytes, want the cap %d", len(got), maxHead)
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

// TestAPageSaysItsTypeAndNoMore checks that a page that is not HTML is told by its media type
// alone: the rest of its Content-Type header is the server's text, kept out of run records.
func TestAPageSaysItsTypeAndNoMore(t *testing.T) {
	for _, tc := range []struct{ ctype, want string }{
		{"application/pdf", "the page is application/pdf, not HTML"},
		{"application/x-internal; secret=" + strings.Repeat("A", 200_000), "the page is application/x-internal, not HTML"},
		{"application/" + strings.Repeat("x", 100), "the page is of an unreadable Content-Type, not HTML"},
		{"not a type at all", "the page is of an unreadable Content-Type, not HTML"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", tc.ctype)
			w.Write([]byte("%PDF"))
		}))
		_, err := (&fetcher{client: srv.Client(), timeout: 5 * time.Second}).fetch(context.Background(), srv.URL)
		srv.Close()
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) || len(err.Error()) > 200 {
			t.Errorf("Content-Type %.40q: %.200v; want it to end %q", tc.ctype, err, tc.want)
		}
	}
}
