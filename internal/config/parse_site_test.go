package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSite(t *testing.T) {
	c := mustParse(t, `defaults:
  schedule: "0 3 * * *"
  include: ["/blog/**"]
  indexnow: {endpoints: [https://a.example/indexnow, https://b.example/indexnow], batchSize: 500}
  feed: {maxItems: 20}
`, nil)
	s, err := c.ParseSite([]byte(`{"id": "api.example", "sitemaps": ["https://api.example/sitemap.xml", "local/s.xml"],
		"indexnow": {"enabled": true, "key": "0123456789abcdef", "endpoints": ["https://c.example/indexnow"]},
		"runBudget": "90s", "feed": {"enabled": true, "out": "public/feed.xml"}, "bing": null}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Schedule != "0 3 * * *" || s.Cron() == nil || s.IndexNow.BatchSize != 500 || s.RunBudget.D() != 90*time.Second ||
		s.Feed.MaxItems != 20 || s.BaseURL != "https://api.example" || s.IndexNow.KeyLocation != "https://api.example/0123456789abcdef.txt" {
		t.Errorf("inherited or derived values: %+v", s)
	}
	if s.Sitemaps[1] != "/etc/sitepush/local/s.xml" || s.Feed.Out != "/etc/sitepush/public/feed.xml" {
		t.Errorf("paths are resolved against the file's directory: %v %q", s.Sitemaps, s.Feed.Out)
	}
	if !slices.Equal(c.Defaults.IndexNow.Endpoints, []string{"https://a.example/indexnow", "https://b.example/indexnow"}) ||
		!slices.Equal(s.IndexNow.Endpoints, []string{"https://c.example/indexnow"}) || !s.PathAllowed("/blog/x") {
		t.Errorf("the site's list must replace the defaults' without touching them: %v %v", c.Defaults.IndexNow.Endpoints, s.IndexNow.Endpoints)
	}

	for _, tt := range []struct{ body, want string }{
		{`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "bing": {"enabled": true}}`,
			`site "x": bing.apiKey is required when bing.enabled is true`},
		{`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "bing": {"apikey": "k"}}`,
			`site "x": unknown key "apikey" in bing`},
		{`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "feed": {"maxItems": "many"}}`,
			`site "x": feed.maxItems must be a whole number, got "many"`},
		{`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "feed": {"baselineItems": 30}}`,
			`site "x": feed.baselineItems (30) must be at most feed.maxItems (20, inherited)`},
		{`{"sitemaps": ["https://x.example/s.xml"]}`, "site: id is required"},
		{`["x"]`, "a site must be an object with the configuration file's keys"},
		{`{"id": "x", `, "line 1"},
	} {
		if _, err := c.ParseSite([]byte(tt.body)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %q", tt.body, err, tt.want)
		}
	}
}

func TestMasked(t *testing.T) {
	s := Site{}
	s.IndexNow.Key, s.Bing.APIKey = "0123456789abcdef", "secret-bing-key"
	m := s.Masked()
	if m.IndexNow.Key != "0123…" || m.Bing.APIKey != "secr…" || s.Bing.APIKey != "secret-bing-key" {
		t.Errorf("masked %q %q, original %q", m.IndexNow.Key, m.Bing.APIKey, s.Bing.APIKey)
	}
	if !IsMasked("secr…", s.Bing.APIKey) || IsMasked("secret-bing-key", s.Bing.APIKey) || IsMasked("…", "") {
		t.Error("IsMasked")
	}
}
