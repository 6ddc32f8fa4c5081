package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiff: diff prints the new, changed and removed URLs of two sitemap files in each format,
// and refuses a sitemap it cannot read, naming it.
func TestDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("old.xml", `<urlset><url><loc>https://a.example/same</loc><lastmod>2026-01-01</lastmod></url>`+
		`<url><loc>https://a.example/moved-on</loc><lastmod>2026-01-01</lastmod></url><url><loc>https://a.example/gone</loc></url></urlset>`)
	now := write("new.xml", `<urlset><url><loc>https://a.example/same</loc><lastmod>2026-01-01</lastmod></url>`+
		`<url><loc>https://A.example/moved-on</loc><lastmod>2026-02-01</lastmod></url><url><loc>https://a.example/new</loc></url></urlset>`)
	for _, tc := range []struct {
		format, want string
	}{
		{"text", "new     https://a.example/new\nchanged https://a.example/moved-on\nremoved https://a.example/gone\n"},
		{"tsv", "new\thttps://a.example/new\t\t\nchanged\thttps://a.example/moved-on\t2026-02-01T00:00:00Z\t2026-01-01T00:00:00Z\nremoved\thttps://a.example/gone\t\t\n"},
		{"jsonl", `{"change":"new","url":"https://a.example/new"}` + "\n" +
			`{"change":"changed","url":"https://a.example/moved-on","lastmod":"2026-02-01T00:00:00Z","before":"2026-01-01T00:00:00Z"}` + "\n" +
			`{"change":"removed","url":"https://a.example/gone"}` + "\n"},
	} {
		code, out, errOut := run(t, "diff", old, now, "--format", tc.format)
		if code != exitOK || out != tc.want {
			t.Errorf("%s: exit %d, stdout\n%s\nwant\n%s\nstderr %s", tc.format, code, out, tc.want, errOut)
		}
	}
	code, _, errOut := run(t, "diff", old, filepath.Join(dir, "missing.xml"))
	if code == exitOK || !strings.Contains(errOut, "NEW "+filepath.Join(dir, "missing.xml")) {
		t.Errorf("a NEW that does not exist: exit %d, %s", code, errOut)
	}
}

// TestDiffOtherHosts: diff prints what a run would announce, so only the site's own URLs — the
// host of NEW's first URL, or of OLD's when NEW lists none — and counts the others on stderr.
func TestDiffOtherHosts(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, urls ...string) string {
		var b strings.Builder
		b.WriteString("<urlset>")
		for _, u := range urls {
			b.WriteString("<url><loc>" + u + "</loc></url>")
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()+"</urlset>"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("old.xml", "https://a.example/kept", "https://a.example/gone", "https://b.example/page", "http://a.example:8080/engine")
	for _, tc := range []struct {
		name, now, out, err string
	}{
		{"the site", write("new.xml", "https://a.example/kept", "https://c.example/new"),
			"removed https://a.example/gone\n", "3 URLs on hosts other than a.example (the host of NEW's first URL) left out"},
		{"none in NEW", write("empty.xml"),
			"removed https://a.example/gone\nremoved https://a.example/kept\n", "2 URLs on hosts other than a.example"},
	} {
		code, out, errOut := run(t, "diff", old, tc.now)
		if code != exitOK || out != tc.out || !strings.Contains(errOut, tc.err) {
			t.Errorf("%s: exit %d, stdout\n%s\nwant\n%s\nstderr %s\nwant it to say %q", tc.name, code, out, tc.out, errOut, tc.err)
		}
	}
}

// TestDiffSpillsToTMPDIR: diff keeps the URLs of its sitemaps in a temporary file, not in
// memory; a TMPDIR it cannot write in is an error that names it.
func TestDiffSpillsToTMPDIR(t *testing.T) {
	dir := t.TempDir()
	sm := filepath.Join(dir, "s.xml")
	if err := os.WriteFile(sm, []byte("<urlset><url><loc>https://a.example/</loc></url></urlset>"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	if code, _, errOut := run(t, "diff", sm, sm); code == exitOK || !strings.Contains(errOut, "TMPDIR") {
		t.Errorf("TMPDIR missing: exit %d, stderr %s; want an error naming TMPDIR", code, errOut)
	}
}
