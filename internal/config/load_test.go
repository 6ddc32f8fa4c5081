package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sitepush.yaml")
	_, err := Load(path, env(nil))
	want := path + ": no such file; write one for your site with `sitepush init URL --config " + path + "` (URL: the site's address, " +
		"like https://example.com/), or point at another with --config FILE or $SITEPUSH_CONFIG"
	if err == nil || err.Error() != want {
		t.Errorf("Load = %v, want %q", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sitepush.yaml")
	doc := "state: sqlite:state.db\nsites:\n  - id: files\n    baseUrl: https://files.example\n    sitemaps: [sitemap.xml]\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir != dir || c.State != "sqlite:"+filepath.Join(dir, "state.db") || c.Sites[0].Sitemaps[0] != filepath.Join(dir, "sitemap.xml") {
		t.Errorf("Dir %q, state %q, sitemap %q: want all in %s", c.Dir, c.State, c.Sites[0].Sitemaps[0], dir)
	}
	s, ok := c.Site("files")
	if !ok || s != &c.Sites[0] {
		t.Errorf("Site(files) = %v, %v", s, ok)
	}
	if _, ok := c.Site("nope"); ok {
		t.Error("Site(nope) found a site")
	}
}

func TestLoadPrefixesEveryError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("listen: x\nuserAgent: \"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, env(nil))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d problems, want 2: %v", len(lines), err)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, path+": ") {
			t.Errorf("%q does not start with the file name", l)
		}
	}
}

func TestCronIsUTC(t *testing.T) {
	c := mustParse(t, siteDoc(`schedule: "30 6 * * *"`), nil)
	s := c.Sites[0].Cron()
	if s == nil {
		t.Fatal("Cron() is nil after Parse")
	}
	paris := time.FixedZone("CET", 3600)
	next := s.Next(time.Date(2026, 1, 1, 0, 0, 0, 0, paris))
	if want := time.Date(2026, 1, 1, 6, 30, 0, 0, time.UTC); !next.Equal(want) {
		t.Errorf("Next = %v, want %v", next, want)
	}
}

func TestFlowMappingVarHint(t *testing.T) {
	_, err := Parse([]byte("sites:\n  - id: x\n    sitemaps: [https://x.example/s.xml]\n    bing: {enabled: true, apiKey: ${K}}\n"), "/", func(string) (string, bool) { return "k", true })
	if err == nil || !strings.Contains(err.Error(), `inside {…} a ${VAR} must be quoted ("${VAR}")`) {
		t.Errorf("err = %v", err)
	}
	if _, err := Parse([]byte("sites:\n  - id: x\n    sitemaps: [https://x.example/s.xml]\n    bing: {enabled: true, apiKey: \"${K}\"}\n"), "/", func(string) (string, bool) { return "bing-key-1", true }); err != nil {
		t.Errorf("a quoted ${VAR} in a flow mapping: %v", err)
	}
}
