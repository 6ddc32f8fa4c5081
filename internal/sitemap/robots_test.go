package sitemap

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestRobotsSitemaps(t *testing.T) {
	base, _ := url.Parse("https://a.example/robots.txt")
	robots := "User-agent: *\nDisallow: /private # not this\n\nSITEMAP:  https://a.example/s1.xml\n" +
		"sitemap:/s2.xml\r\nSitemap: https://a.example/s1.xml\n  Sitemap : https://cdn.example/s3.xml.gz # comment\n" +
		"Sitemap: ftp://a.example/no.xml\n# Sitemap: https://a.example/commented.xml\n"
	var got []string
	for _, u := range robotsSitemaps([]byte(robots), base) {
		got = append(got, u.String())
	}
	want := []string{"https://a.example/s1.xml", "https://a.example/s2.xml", "https://cdn.example/s3.xml.gz"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRobotsSitemapsAsGoogleReadsThem(t *testing.T) {
	// Google's robots.txt parser takes a field whose name begins with "sitemap" or "site-map", in
	// any case, whitespace before the colon, and whitespace instead of a missing colon when the
	// line holds just the name and the value; it skips a byte order mark and ends lines at CR,
	// LF or both.
	base, _ := url.Parse("https://a.example/robots.txt")
	tests := []struct{ name, robots, want string }{
		{"Site-map:", "User-agent: *\nSite-map: https://a.example/1.xml\n", "https://a.example/1.xml"},
		{"SITE-MAP in capitals", "SITE-MAP:https://a.example/1.xml", "https://a.example/1.xml"},
		{"Sitemaps:", "Sitemaps: https://a.example/1.xml", "https://a.example/1.xml"},
		{"tab before the colon", "Sitemap\t: https://a.example/1.xml", "https://a.example/1.xml"},
		{"no colon", "Sitemap https://a.example/1.xml", "https://a.example/1.xml"},
		{"no colon, tabs", "\tsite-map\t\thttps://a.example/1.xml\t", "https://a.example/1.xml"},
		{"no colon, two values", "Sitemap https://a.example/1.xml https://a.example/2.xml", ""},
		{"byte order mark", "\ufeffSitemap: https://a.example/1.xml\n", "https://a.example/1.xml"},
		{"CR line ends", "User-agent: *\rDisallow: /x\rSitemap: https://a.example/1.xml\rSitemap: /2.xml", "https://a.example/1.xml https://a.example/2.xml"},
		{"not a sitemap field", "Site: https://a.example/1.xml\nmap: https://a.example/2.xml\nXSitemap: https://a.example/3.xml", ""},
		{"empty value", "Sitemap:\nSitemap: # nothing", ""},
		// A value is percent-encoded where a browser would, in its path and in its query: raw, a
		// line or paragraph separator breaks the lines of whatever writes the URL down.
		{"separators and spaces inside", "Sitemap: https://a.example/p\u2029q.xml?v=a\u2028b\u0085c d\n",
			"https://a.example/p%E2%80%A9q.xml?v=a%E2%80%A8b%C2%85c%20d"},
	}
	for _, tc := range tests {
		var got []string
		for _, u := range robotsSitemaps([]byte(tc.robots), base) {
			got = append(got, u.String())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDiscoveryRoot(t *testing.T) {
	tests := map[string]string{
		"https://a.example":                "https://a.example/robots.txt",
		"https://a.example/":               "https://a.example/robots.txt",
		"https://a.example/robots.txt":     "https://a.example/robots.txt",
		"https://a.example/sub/robots.txt": "https://a.example/sub/robots.txt",
		"https://a.example/sitemap.xml":    "",
		"https://a.example/?q=1":           "",
	}
	for in, want := range tests {
		u, _ := url.Parse(in)
		got, ok := discoveryRoot(u)
		if (want == "") == ok || ok && got.String() != want {
			t.Errorf("discoveryRoot(%s) = %v, %v; want %q", in, got, ok, want)
		}
	}
}

func TestReaderRobots(t *testing.T) {
	files := map[string]string{"/robots.txt": "User-agent: *\nSitemap: /a.xml\nSitemap: https://cdn.example/b.xml\n"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, body)
	}))
	defer srv.Close()
	r := NewReader(Options{Client: srv.Client()})
	got, err := r.Robots(context.Background(), srv.URL+"/")
	if want := srv.URL + "/a.xml https://cdn.example/b.xml"; err != nil || strings.Join(got, " ") != want {
		t.Errorf("Robots: %v, %v; want %s", got, err, want)
	}
	delete(files, "/robots.txt")
	if got, err := r.Robots(context.Background(), srv.URL+"/robots.txt"); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Errorf("no robots.txt: %v, %v; want the 404", got, err)
	}
	if _, err := r.Robots(context.Background(), srv.URL+"/sitemap.xml"); err == nil {
		t.Error("a sitemap URL was taken for a site root")
	}
}
