package config

import (
	"strings"
	"testing"
)

// env returns a lookupEnv over a fixed map, so that tests never read the real environment.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// siteDoc is a file with one valid site, example.com, plus extra lines at the site's level.
func siteDoc(extra string) string {
	doc := "sites:\n  - id: example.com\n    sitemaps: [https://example.com/sitemap.xml]\n"
	for _, line := range strings.Split(extra, "\n") {
		if line != "" {
			doc += "    " + line + "\n"
		}
	}
	return doc
}

// parse parses doc as a file in /etc/sitepush with the given environment.
func parse(doc string, vars map[string]string) (*Config, error) {
	return Parse([]byte(doc), "/etc/sitepush", env(vars))
}

// mustParse parses doc and fails the test on any error.
func mustParse(t *testing.T, doc string, vars map[string]string) *Config {
	t.Helper()
	c, err := parse(doc, vars)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	return c
}

// checkErr asserts that err is nil when want is empty, and otherwise that its text contains want.
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Errorf("no error, want one containing %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("error %q\ndoes not contain %q", err, want)
	}
}
