package runner_test

import (
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/runner"
)

// TestRefused: a chosen URL is refused with the reason that is true of it, and what an engine
// would take as the page is not refused.
func TestRefused(t *testing.T) {
	s := newSite(t, "    exclude: [/private/**]\n    indexnow: {enabled: true, key: abcdef0123456789}\n").site
	for _, tc := range []struct{ url, reason string }{
		{"https://a.example/x", ""},
		{"HTTPS://A.EXAMPLE/x", ""},
		{"https://a.example/x?q=1", ""},
		{"https://b.example/x", "on host b.example"},
		{"https://a.example:8443/x", "on host a.example:8443"},
		{"/x", "not an absolute http(s) URL"},
		{"ftp://a.example/x", "not an absolute http(s) URL"},
		{"https://a.example/private/x", "left out by the site's include/exclude globs"},
		{"https://a.example/" + strings.Repeat("a", 2048), "longer than 2048 characters"},
		{"https://user:secret@a.example/x", "user information"},
		{"https://a.example/x#part", "fragment"},
		{"https://a.example/a b", "space"},
	} {
		if got := runner.Refused(s, tc.url); tc.reason == "" && got != "" || !strings.Contains(got, tc.reason) {
			t.Errorf("Refused(%q) = %q, want %q", tc.url, got, tc.reason)
		}
	}
}
