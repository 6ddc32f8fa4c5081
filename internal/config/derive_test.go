package config

import (
	"testing"
)

func TestDerived(t *testing.T) {
	baseURL := func(s *Site) string { return s.BaseURL }
	keyLocation := func(s *Site) string { return s.IndexNow.KeyLocation }
	tests := []struct {
		name string
		doc  string
		got  func(*Site) string
		want string
	}{
		{"baseUrl from the first sitemap", siteDoc(""), baseURL, "https://example.com"},
		{"baseUrl keeps a port",
			"sites:\n  - id: example.com\n    sitemaps: [http://127.0.0.1:8081/a/sitemap.xml, https://other.example/s.xml]\n",
			baseURL, "http://127.0.0.1:8081"},
		{"baseUrl given wins", siteDoc("baseUrl: https://www.example.com"), baseURL, "https://www.example.com"},
		{"trailing slash dropped", siteDoc("baseUrl: https://www.example.com/"), baseURL, "https://www.example.com"},
		{"keyLocation from baseUrl and key", siteDoc("indexnow: {key: abcdef12-34}"), keyLocation,
			"https://example.com/abcdef12-34.txt"},
		{"keyLocation given wins", siteDoc("indexnow: {key: abcdef12-34, keyLocation: https://example.com/k/key.txt}"),
			keyLocation, "https://example.com/k/key.txt"},
		{"no keyLocation without a key", siteDoc(""), keyLocation, ""},
		{"feed title", siteDoc(""), func(s *Site) string { return s.Feed.Title }, "example.com — new pages"},
		{"feed description", siteDoc("baseUrl: https://www.example.com:8443"),
			func(s *Site) string { return s.Feed.Description }, "New pages on www.example.com:8443"},
		{"feed title given wins", siteDoc("feed: {title: Mine}"), func(s *Site) string { return s.Feed.Title }, "Mine"},
		{"feed url from baseUrl", siteDoc("baseUrl: https://www.example.com/"), func(s *Site) string { return s.Feed.URL }, "https://www.example.com/feed.xml"},
		{"feed url given wins", siteDoc("feed: {url: https://cdn.example.com/f.xml}"), func(s *Site) string { return s.Feed.URL }, "https://cdn.example.com/f.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, tt.doc, nil)
			if got := tt.got(&c.Sites[0]); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRelativePaths(t *testing.T) {
	doc := `state: sqlite:data/state.db
sites:
  - id: files
    baseUrl: https://files.example
    sitemaps: [public/sitemap.xml, /srv/abs.xml, https://files.example/s.xml, ~/s.xml, .well-known/s.xml, ~j.doe/s.xml]
    feed: {out: ./public/feed.xml}
  - id: abs
    sitemaps: [https://abs.example/s.xml]
    feed: {out: /var/www/feed.xml}
`
	c := mustParse(t, doc, nil)
	tests := []struct{ name, got, want string }{
		{"state", c.State, "sqlite:/etc/sitepush/data/state.db"},
		{"relative sitemap", c.Sites[0].Sitemaps[0], "/etc/sitepush/public/sitemap.xml"},
		{"absolute sitemap", c.Sites[0].Sitemaps[1], "/srv/abs.xml"},
		{"URL sitemap", c.Sites[0].Sitemaps[2], "https://files.example/s.xml"},
		{"no ~ expansion", c.Sites[0].Sitemaps[3], "/etc/sitepush/~/s.xml"},
		{"dot directory", c.Sites[0].Sitemaps[4], "/etc/sitepush/.well-known/s.xml"},
		{"~ with a dot", c.Sites[0].Sitemaps[5], "/etc/sitepush/~j.doe/s.xml"},
		{"relative feed.out", c.Sites[0].Feed.Out, "/etc/sitepush/public/feed.xml"},
		{"absolute feed.out", c.Sites[1].Feed.Out, "/var/www/feed.xml"},
		{"Dir", c.Dir, "/etc/sitepush"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	for _, state := range []string{"sqlite::memory:", "sqlite:/abs/x.db", "sqlite:file:x.db?mode=ro", "postgres://u:p@h/db"} {
		if c := mustParse(t, "state: \""+state+"\"\n", nil); c.State != state {
			t.Errorf("state %q became %q", state, c.State)
		}
	}
}
