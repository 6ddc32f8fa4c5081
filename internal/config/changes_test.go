package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// changesDir returns a directory for a configuration file, holding a directory public/ (a built
// site) and a file page.html.
func changesDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "public"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "page.html"), []byte("<title>x</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestChangesValues checks what a site's changes block holds: the built-in values, the defaults'
// laid over them key by key, the site's over those, and changes.dir resolved against the
// configuration file's directory.
func TestChangesValues(t *testing.T) {
	dir := changesDir(t)
	tests := []struct {
		name string
		doc  string
		want Changes
	}{
		{"built in", siteDoc(""), Changes{Detect: DetectAuto, ChecksPerRun: 1000}},
		{"from defaults", "defaults:\n  changes: {detect: content, checksPerRun: 50}\n" + siteDoc(""),
			Changes{Detect: DetectContent, ChecksPerRun: 50}},
		{"the site's key, the defaults' sibling", "defaults:\n  changes: {detect: content, checksPerRun: 50}\n" + siteDoc("changes: {detect: lastmod}"),
			Changes{Detect: DetectLastmod, ChecksPerRun: 50}},
		{"an empty block keeps the defaults", "defaults:\n  changes: {checksPerRun: 7}\n" + siteDoc("changes:"),
			Changes{Detect: DetectAuto, ChecksPerRun: 7}},
		{"a relative dir", siteDoc("changes: {dir: ./public}"), Changes{Detect: DetectAuto, ChecksPerRun: 1000, Dir: filepath.Join(dir, "public")}},
		{"a dir without ./", siteDoc("changes: {dir: public/}"), Changes{Detect: DetectAuto, ChecksPerRun: 1000, Dir: filepath.Join(dir, "public")}},
		{"an absolute dir", siteDoc("changes: {dir: " + filepath.Join(dir, "public") + "}"),
			Changes{Detect: DetectAuto, ChecksPerRun: 1000, Dir: filepath.Join(dir, "public")}},
		{"the bounds", siteDoc("changes: {checksPerRun: 100000}"), Changes{Detect: DetectAuto, ChecksPerRun: 100000}},
		{"the least", siteDoc("changes: {checksPerRun: 1}"), Changes{Detect: DetectAuto, ChecksPerRun: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.doc), dir, nil)
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, tt.doc)
			}
			if got := c.Sites[0].Changes; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("changes %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestChangesRules checks the rules of the changes block and their messages, in the defaults
// and in a site.
func TestChangesRules(t *testing.T) {
	dir := changesDir(t)
	tests := []struct {
		name    string
		doc     string
		want    string
		notWant string
	}{
		{name: "detect mistyped", doc: siteDoc("changes: {detect: contnet}"),
			want: `site "example.com": changes.detect must be auto, lastmod or content, got "contnet"; did you mean "content"?`},
		{name: "detect far from any", doc: siteDoc("changes: {detect: sometimes}"),
			want: `site "example.com": changes.detect must be auto, lastmod or content, got "sometimes"`, notWant: "did you mean"},
		{name: "detect in another case", doc: "defaults:\n  changes: {detect: Lastmod}\n",
			want: `defaults: changes.detect must be auto, lastmod or content, got "Lastmod"; did you mean "lastmod"?`},
		{name: "no checks", doc: siteDoc("changes: {checksPerRun: 0}"),
			want: `site "example.com": changes.checksPerRun must be 1 or more: the pages a run looks at to tell whether they changed; ` +
				"to look at none, set changes.detect: lastmod"},
		{name: "too many checks", doc: "defaults:\n  changes: {checksPerRun: 100001}\n",
			want: "defaults: changes.checksPerRun must be between 1 and 100000 (the pages a run fetches or reads from dir at most), got 100001"},
		{name: "negative checks", doc: siteDoc("changes: {checksPerRun: -5}"), want: "changes.checksPerRun must be between 1 and 100000"},
		{name: "a fraction of checks", doc: siteDoc("changes: {checksPerRun: 2.5}"), want: `changes.checksPerRun must be a whole number, got "2.5"`},
		{name: "a problem of the defaults once", doc: "defaults:\n  changes: {detect: x}\n" + siteDoc(""),
			want: `defaults: changes.detect must be`, notWant: `site "example.com"`},
		{name: "unknown key", doc: siteDoc("changes:\n  checkPerRun: 5"),
			want: `line 5: site "example.com": unknown key "checkPerRun" in changes (known: detect, checksPerRun, dir); did you mean "checksPerRun"?`},
		{name: "unknown key in defaults leaves dir out", doc: "defaults:\n  changes:\n    detcet: auto\n",
			want: `line 3: defaults: unknown key "detcet" in changes (known: detect, checksPerRun); did you mean "detect"?`},
		{name: "dir in defaults", doc: "defaults:\n  changes:\n    detect: auto\n    dir: ./public\n",
			want: "line 4: defaults: changes.dir belongs to each site and cannot be given in defaults (it is the directory one site is built into); give it on the site"},
		{name: "an empty dir in defaults", doc: "defaults:\n  changes: {dir: }\n", want: "line 2: defaults: changes.dir belongs to each site"},
		{name: "dir missing", doc: siteDoc("changes: {dir: ./dist}"),
			want: `site "example.com": changes.dir "` + filepath.Join(dir, "dist") + `" does not exist; give the directory the site is built into, ` +
				"holding its pages (a relative path is resolved against the configuration file's directory), and build the site before sitepush runs"},
		{name: "dir a file", doc: siteDoc("changes: {dir: page.html}"),
			want: `site "example.com": changes.dir "` + filepath.Join(dir, "page.html") + `" is a file, not a directory; give the directory the site is built into`},
		{name: "dir under a file", doc: siteDoc("changes: {dir: page.html/public}"),
			want: `site "example.com": changes.dir "` + filepath.Join(dir, "page.html", "public") + `" cannot be read: not a directory; ` +
				"give a directory the user that runs sitepush can read"},
		{name: "dir a directory", doc: siteDoc("changes: {dir: public}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), dir, nil)
			checkErr(t, err, tt.want)
			if err != nil && tt.notWant != "" && strings.Contains(err.Error(), tt.notWant) {
				t.Errorf("error %q contains %q", err, tt.notWant)
			}
		})
	}
}

// TestChangesDirIsLookedAtOnlyInAFile checks that changes.dir is looked for on the disk only for
// a site of a configuration file: a configuration read from no file (the Worker's) has no
// directory to look in, and a site of the API is refused the key (internal/sites) without the
// disk answering whether its path exists.
func TestChangesDirIsLookedAtOnlyInAFile(t *testing.T) {
	doc := siteDoc("changes: {dir: /no/such/dir}")
	if _, err := Parse([]byte(doc), changesDir(t), nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a file's site: %v, want the dir refused", err)
	}
	c, err := Parse([]byte(doc), "", nil)
	if err != nil {
		t.Fatalf("a configuration read from no file: %v", err)
	}
	if got := c.Sites[0].Changes.Dir; got != "/no/such/dir" {
		t.Errorf("changes.dir %q", got)
	}
	site, err := c.ParseSite([]byte(`{"id": "a", "sitemaps": ["https://a.example/s.xml"], "changes": {"dir": "/no/such/dir"}}`))
	if err != nil || site.Changes.Dir != "/no/such/dir" {
		t.Errorf("a site of the API: %v, dir %q", err, site.Changes.Dir)
	}
}
