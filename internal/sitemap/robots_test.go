package sitemap

import (
	"net/url"
	"strings"
	"testing"
)

func TestRobotsSitemaps(t *testing.T) {
	base, _ := url.Parse("https://a.example/robots.txt")
	robots := "User-agent: *\nDisallow: /private # not this\n\nSITEMAP:  https://a.example/s1.xml\n" +
		"sitemap:/s2.xml\r\nSitemap: https://a.example/s1.xml\n  Sitemap : https://cdn.example/s3.xml.gz # comment\n" +
		"Sitemap: ftp://a.example/no.xml\nSitemaps: https://a.example/no.xml\n# Sitemap: https://a.example/commented.xml\n"
	var got []string
	for _, u := range robotsSitemaps(strings.NewReader(robots), base) {
		got = append(got, u.String())
	}
	want := []string{"https://a.example/s1.xml", "https://a.example/s2.xml", "https://cdn.example/s3.xml.gz"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
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
