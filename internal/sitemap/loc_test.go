package sitemap

import (
	"net/url"
	"strings"
	"testing"
)

func TestPageURL(t *testing.T) {
	base, _ := url.Parse("https://a.example/sitemaps/s.xml")
	tests := []struct {
		in, want   string
		local      bool
		note, skip string
	}{
		{in: "https://a.example/p", want: "https://a.example/p"},
		{in: "HTTP://A.example/p?q=1#f", want: "HTTP://A.example/p?q=1#f"},
		{in: "http://a.example", want: "http://a.example"},
		{in: "https://a.example/CV James.pdf", want: "https://a.example/CV%20James.pdf", note: "percent-encoded"},
		{in: "https://a.example/a\tb", want: "https://a.example/a%09b", note: "percent-encoded"},
		{in: "https://bg.example/интерактивна-карта/", want: "https://bg.example/интерактивна-карта/"},
		{in: "https://a.example/\xff", want: "https://a.example/%FF", note: "percent-encoded"},
		{in: "/p/relative", want: "https://a.example/p/relative", note: "resolved"},
		{in: "relative", want: "https://a.example/sitemaps/relative", note: "resolved"},
		{in: "//cdn.example/x", want: "https://cdn.example/x", note: "resolved"},
		{in: "/p/relative", local: true, skip: "cannot be resolved"},
		{in: "ftp://a.example/x", skip: "not an http(s) URL"},
		{in: "localhost:3000/palettes", skip: "not an http(s) URL"},
		{in: "mailto:x@a.example", skip: "not an http(s) URL"},
		{in: "https://", skip: "no host"},
		{in: "https:///path", skip: "no host"},
		{in: "https://a.example/%zz", want: "https://a.example/%zz"}, // tolerated, as browsers do
		{in: "https://a.example/%zz x", skip: "not a valid URL"},
	}
	for _, tc := range tests {
		b := base
		if tc.local {
			b = nil
		}
		got, note, skip := pageURL([]byte(tc.in), b)
		if string(got) != tc.want || !contains(note, tc.note) || !contains(skip, tc.skip) {
			t.Errorf("pageURL(%q) = %q, note %q, skip %q; want %q, note ~%q, skip ~%q", tc.in, got, note, skip, tc.want, tc.note, tc.skip)
		}
	}
}

// contains is strings.Contains that also requires an empty s when want is empty.
func contains(s, want string) bool {
	if want == "" {
		return s == ""
	}
	return strings.Contains(s, want)
}

func TestPrintableASCII(t *testing.T) {
	for i := 0; i < 256; i++ {
		for _, n := range []int{1, 7, 8, 9, 16, 31} {
			b := []byte(strings.Repeat("a", n))
			b[n/2] = byte(i)
			want := i > ' ' && i < 0x7f
			if got := printableASCII(b); got != want {
				t.Fatalf("printableASCII with byte %#x at %d of %d = %v, want %v", i, n/2, n, got, want)
			}
		}
	}
}

func TestHTTPPrefix(t *testing.T) {
	for in, want := range map[string]int{"http://x": 7, "HTTPS://x": 8, "hTtPs://": 8, "http:/x": 0, "https:x": 0, "ftp://x": 0, "http": 0, "": 0} {
		if got := httpPrefix([]byte(in)); got != want {
			t.Errorf("httpPrefix(%q) = %d, want %d", in, got, want)
		}
	}
}
