package config

import "testing"

func TestValidateGoogle(t *testing.T) {
	tests := []struct{ name, extra, want string }{
		{"domain property", "google: {enabled: true, credentials: key.json, property: sc-domain:example.com}", ""},
		{"URL prefix", "google: {enabled: true, credentials: key.json, property: https://example.com/}", ""},
		{"off needs nothing", "google: {enabled: false}", ""},
		{"credentials required", "google: {enabled: true, property: sc-domain:example.com}",
			`site "example.com": google.credentials is required when google.enabled is true`},
		{"property required", "google: {enabled: true, credentials: key.json}",
			`site "example.com": google.property is required when google.enabled is true`},
		{"prefix without slash", "google: {property: https://example.com}",
			`google.property "https://example.com" must be a Search Console property: sc-domain:example.com for a domain, or a URL prefix ending in "/"`},
		{"inspectPerDay", "google: {inspectPerDay: 2001}",
			`google.inspectPerDay must be between 1 and 2000 (Google allows 2,000 inspections a day per property), got 2001`},
		{"endpoint", "google: {endpoint: www.googleapis.com}", `google.endpoint "www.googleapis.com" must be an absolute http(s) URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(siteDoc(tt.extra), nil)
			checkErr(t, err, tt.want)
		})
	}
}

// TestGoogleDefaults: the flows are on and the path is resolved against the file's directory;
// defaults: gives the section to every site.
func TestGoogleDefaults(t *testing.T) {
	c := mustParse(t, "defaults:\n  google: {inspectPerDay: 100}\n"+siteDoc("google: {enabled: true, credentials: keys/sa.json, property: sc-domain:example.com}"), nil)
	g := c.Sites[0].Google
	if !g.Sitemaps || !g.Inspect || g.InspectPerDay != 100 || g.Endpoint != "https://www.googleapis.com" || g.Credentials != "/etc/sitepush/keys/sa.json" {
		t.Errorf("google: %+v", g)
	}
}
