package config

import "testing"

// TestGiven: a setting the site or the defaults wrote is given, one left at sitepush's built-in
// value is not — even when both hold the same number — for a site of the file and one of the API;
// a site built outside the file counts every value as given.
func TestGiven(t *testing.T) {
	tests := []struct {
		name, doc, api string
		want           bool
	}{
		{"left to the built-in value", "sites:\n  - id: a.example\n    sitemaps: [https://a.example/sitemap.xml]\n    bing: {enabled: true, apiKey: k}\n", `{"id": "b.example", "sitemaps": ["https://b.example/s.xml"], "bing": {"enabled": true, "apiKey": "k"}}`, false},
		{"the site's own, the built-in number", "sites:\n  - id: a.example\n    sitemaps: [https://a.example/sitemap.xml]\n    bing: {enabled: true, apiKey: k, dailyQuota: 100}\n", `{"id": "b.example", "sitemaps": ["https://b.example/s.xml"], "bing": {"enabled": true, "apiKey": "k", "dailyQuota": 100}}`, true},
		{"the defaults'", "defaults:\n  bing: {dailyQuota: 40}\nsites:\n  - id: a.example\n    sitemaps: [https://a.example/sitemap.xml]\n    bing: {enabled: true, apiKey: k}\n", `{"id": "b.example", "sitemaps": ["https://b.example/s.xml"], "bing": {"enabled": true, "apiKey": "k"}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, tt.doc, nil)
			if got := c.Sites[0].Given("bing.dailyQuota"); got != tt.want {
				t.Errorf("the file's site: Given(bing.dailyQuota) = %v, want %v", got, tt.want)
			}
			api, err := c.ParseSite([]byte(tt.api))
			if err != nil {
				t.Fatal(err)
			}
			if got := api.Given("bing.dailyQuota"); got != tt.want {
				t.Errorf("a site of the API: Given(bing.dailyQuota) = %v, want %v", got, tt.want)
			}
			if c.Sites[0].Given("bing.priority") {
				t.Error("Given(bing.priority), written nowhere, is true")
			}
		})
	}
	built := Site{ID: "c.example", Sitemaps: []string{"https://c.example/s.xml"}, Settings: Builtin()}
	if err := built.Validate(); err != nil {
		t.Fatal(err)
	}
	if !built.Given("bing.dailyQuota") {
		t.Error("a site built outside the file: Given(bing.dailyQuota) is false; every value of it is its own")
	}
}
