package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
)

const testKey = "a1b2c3d4e5f6a7b8c9d0"

// testWorld is a site and an IndexNow engine on loopback, and a configuration naming them.
type testWorld struct {
	site, engine *httptest.Server
	eng          *enginetest.IndexNow
	files        enginetest.Files
	config       string
}

// pagesOr serves files, and a page for any other path under /p/, as a site does: a preflight
// (docs/runs.md, "Preflight") finds the pages it is to send.
func pagesOr(files enginetest.Files) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := files[r.URL.Path]; ok || !strings.HasPrefix(r.URL.Path, "/p/") {
			files.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><html><head><title>A page</title></head><body>A page</body></html>")
	})
}

func newTestWorld(t *testing.T, extra string) *testWorld {
	w := &testWorld{files: enginetest.Files{"/" + testKey + ".txt": testKey}}
	w.site = httptest.NewServer(pagesOr(w.files))
	t.Cleanup(w.site.Close)
	w.eng = &enginetest.IndexNow{FetchKey: enginetest.FetchOverHTTP}
	w.engine = httptest.NewServer(w.eng)
	t.Cleanup(w.engine.Close)
	dir := t.TempDir()
	w.config = filepath.Join(dir, "sitepush.yaml")
	os.WriteFile(w.config, []byte(fmt.Sprintf(`state: sqlite:state.db
defaults:
  indexnow: {endpoints: [%s/indexnow], interval: 1ms, backoff: [1ms], throttleWait: 1ms}
sites:
  - id: demo
    sitemaps: [%s/sitemap.xml]
    indexnow: {enabled: true, key: %s}
%s`, w.engine.URL, w.site.URL, testKey, extra)), 0o644)
	return w
}

func (w *testWorld) publish(n int) {
	var b strings.Builder
	b.WriteString("<urlset>")
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>%s/p/%d</loc></url>", w.site.URL, i)
	}
	b.WriteString("</urlset>")
	w.files["/sitemap.xml"] = b.String()
}

func TestRunCommand(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(30)
	code, out, errOut := run(t, "run", "--config", w.config, "--dry-run")
	if code != exitOK || !strings.Contains(out, "site demo (dry run, nothing submitted): 30 URLs from 1 sitemap") ||
		!strings.Contains(out, "indexnow: 30 would be submitted") || len(w.eng.Submissions()) != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(w.config), "state.db")); err == nil {
		t.Error("a dry run created the state")
	}
	code, out, errOut = run(t, "run", "--config", w.config)
	if code != exitOK || !strings.Contains(out, "site demo (ok): 30 URLs") || !strings.Contains(out, "indexnow: 30 due, 30 submitted, 0 failed, 0 already known") ||
		len(w.eng.Accepted()) != 30 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run(t, "run", "--config", w.config, "--json", "--site", "demo")
	var rec model.Record
	if err := json.Unmarshal([]byte(out), &rec); err != nil || code != exitOK || rec.Channels["indexnow"].Skipped != 30 || rec.Trigger != "cli" || rec.ID == 0 {
		t.Errorf("--json: exit %d, %v, %s", code, err, out)
	}
}

func TestRunCommandFailures(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(3)
	w.files["/"+testKey+".txt"] = "not the key"
	code, out, errOut := run(t, "run", "--config", w.config)
	if code != exitFailed || !strings.Contains(out, "key not valid: check that "+w.site.URL+"/"+testKey+".txt serves exactly the key") ||
		!strings.Contains(errOut, "1 of 1 sites had failures") {
		t.Errorf("a wrong key file: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(strings.ReplaceAll(out+errOut, testKey+".txt", ""), testKey) {
		t.Error("the key was printed whole")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--site", "nope"}, `no site "nope" in the configuration or the state (the sites are demo)`},
		{[]string{"--channel", "yandex"}, "--channel must be one of all, indexnow, bing, feed"},
		{[]string{"extra"}, "usage: sitepush run"},
	} {
		code, _, errOut := run(t, append([]string{"run", "--config", w.config}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q", tc.args, code, errOut)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("sites:\n  - id: x\n    sitemaps: [https://x.example/s.xml]\n    indexnow: {enabled: true, key: short}\n"), 0o644)
	if code, _, errOut := run(t, "run", "--config", bad); code != exitUsage || !strings.Contains(errOut, `site "x": indexnow.key "shor…" must be 8–128 characters`) {
		t.Errorf("a bad key: exit %d, %q", code, errOut)
	}
	if code, _, errOut := run(t, "run", "--config", filepath.Join(t.TempDir(), "missing.yaml")); code != exitUsage || !strings.Contains(errOut, "missing.yaml") {
		t.Errorf("a missing configuration: exit %d, %q", code, errOut)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
