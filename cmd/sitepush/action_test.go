package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
)

// TestMain lets the test binary stand in for sitepush itself when the action's script runs it.
func TestMain(m *testing.M) {
	if os.Getenv("SITEPUSH_TEST_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestTheActionsScript runs scripts/github-action.sh as action.yml's step does — its inputs in
// the environment, sitepush given through SITEPUSH_BINARY — against a website and IndexNow on
// loopback: with a configuration of state: memory it submits exactly the new and changed URLs
// since the baseline and writes the outputs; with the configuration it makes from the inputs, a
// dry run finds them due and submits nothing; a missing baseline file is warned about.
func TestTheActionsScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	const key = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
	files := enginetest.Files{"/" + key + ".txt": key}
	site := httptest.NewServer(files)
	t.Cleanup(site.Close)
	urlset := func(pages ...string) string {
		var b strings.Builder
		b.WriteString("<urlset>")
		for _, p := range pages {
			path, lm, _ := strings.Cut(p, " ")
			fmt.Fprintf(&b, "<url><loc>%s%s</loc><lastmod>%s</lastmod></url>", site.URL, path, lm)
			files[path] = "<!doctype html><title>" + path + "</title>"
		}
		return b.String() + "</urlset>"
	}
	files["/live.xml"] = urlset("/a 2026-01-01", "/b 2026-01-01", "/c 2026-01-01")
	files["/sitemap.xml"] = urlset("/a 2026-01-01", "/b 2026-02-01", "/c 2026-01-01", "/new 2026-02-01")
	engine := &enginetest.IndexNow{FetchKey: enginetest.FetchOverHTTP}
	indexnow := httptest.NewServer(engine)
	t.Cleanup(indexnow.Close)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "github-action.sh"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(inputs map[string]string) (outputs, stderr string) {
		t.Helper()
		ws, temp := t.TempDir(), t.TempDir()
		out := filepath.Join(temp, "output")
		cmd := exec.Command("bash", script)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "SITEPUSH_TEST_AS_MAIN=1", "SITEPUSH_BINARY="+self, "RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+out)
		for k, v := range inputs {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var errBuf strings.Builder
		cmd.Stderr = &errBuf
		if err := cmd.Run(); err != nil {
			t.Fatalf("the script: %v\n%s", err, errBuf.String())
		}
		if left, _ := os.ReadDir(ws); len(left) != 0 {
			t.Errorf("the script left %d files in the workspace (state: memory keeps none)", len(left))
		}
		b, _ := os.ReadFile(out)
		return string(b), errBuf.String()
	}

	config := filepath.Join(t.TempDir(), "sitepush.yaml")
	os.WriteFile(config, fmt.Appendf(nil, "state: memory\nsites:\n  - id: ci\n    sitemaps: [%s/sitemap.xml]\n    indexnow: {enabled: true, key: %s, endpoints: [%s/indexnow], interval: 1ms}\n",
		site.URL, key, indexnow.URL), 0o644)
	outputs, stderr := run(map[string]string{"SITEPUSH_CONFIG_FILE": config, "SITEPUSH_BASELINE": site.URL + "/live.xml"})
	got := engine.Accepted()
	slices.Sort(got)
	if want := []string{site.URL + "/b", site.URL + "/new"}; !slices.Equal(got, want) {
		t.Errorf("IndexNow got %v; want %v, the changed and the new\n%s", got, want, stderr)
	}
	if !strings.Contains(outputs, "submitted<<") || !strings.Contains(outputs, "\n2\n") || !strings.Contains(outputs, `"site":"ci"`) {
		t.Errorf("the outputs:\n%s", outputs)
	}

	outputs, _ = run(map[string]string{"SITEPUSH_SITEMAP": site.URL + "/sitemap.xml", "SITEPUSH_BASELINE": site.URL + "/live.xml",
		"SITEPUSH_INDEXNOW_KEY": key, "SITEPUSH_DRY_RUN": "true"})
	if len(engine.Accepted()) != 2 || !strings.Contains(outputs, `"indexnow":{"due":2`) {
		t.Errorf("the dry run of the configuration made from the inputs sent %d in all, outputs:\n%s", len(engine.Accepted()), outputs)
	}

	_, stderr = run(map[string]string{"SITEPUSH_SITEMAP": site.URL + "/sitemap.xml", "SITEPUSH_BASELINE": "missing.xml",
		"SITEPUSH_INDEXNOW_KEY": key, "SITEPUSH_DRY_RUN": "true"})
	if !strings.Contains(stderr, "::warning title=sitepush::the baseline missing.xml does not exist") {
		t.Errorf("a missing baseline file: %s", stderr)
	}
}

// TestTheActionsScriptTakesInputsLiterally holds the script to its inputs being data, never
// configuration: an indexnow-key input carrying YAML is refused before any configuration is
// written, a sitemap path and a first URL holding ${VAR} (and a ') reach sitepush as written,
// never expanded from the environment, so that the variable's value is printed nowhere, and an
// input quoted in an annotation cannot start a workflow command.
func TestTheActionsScriptTakesInputsLiterally(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	const (
		key    = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
		secret = "action-probe-secret-31337"
	)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "github-action.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// run runs the script and returns its exit code, everything it printed and wrote as outputs,
	// and the configuration it made ("" when it made none).
	run := func(inputs map[string]string) (code int, printed, config string) {
		t.Helper()
		temp := t.TempDir()
		out := filepath.Join(temp, "output")
		cmd := exec.Command("bash", script)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "SITEPUSH_TEST_AS_MAIN=1", "SITEPUSH_BINARY="+self, "RUNNER_TEMP="+temp,
			"GITHUB_OUTPUT="+out, "SITEPUSH_DRY_RUN=true", "SITEPUSH_PROBE_SECRET="+secret)
		for k, v := range inputs {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		b, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		outputs, _ := os.ReadFile(out)
		made, _ := os.ReadFile(filepath.Join(temp, "sitepush-action", "sitepush.yaml"))
		return cmd.ProcessState.ExitCode(), string(b) + string(outputs), string(made)
	}
	dir := t.TempDir()
	sitemap := func(name string, urls ...string) string {
		var b strings.Builder
		b.WriteString("<urlset>")
		for _, u := range urls {
			fmt.Fprintf(&b, "<url><loc>%s</loc></url>", u)
		}
		b.WriteString("</urlset>")
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	built := sitemap("built.xml", "https://site.example/a", "https://site.example/b")

	injected := `abcdefgh1234", endpoints: ["http://127.0.0.1:9/indexnow"], keyLocation: "https://site.example/x.txt`
	code, printed, config := run(map[string]string{"SITEPUSH_SITEMAP": built, "SITEPUSH_BASELINE": built,
		"SITEPUSH_INDEXNOW_KEY": injected})
	if code != 2 || !strings.Contains(printed, "::error title=sitepush::the input indexnow-key is not an IndexNow key") {
		t.Errorf("an indexnow-key carrying YAML: exit %d, want 2 and the key refused; printed:\n%s", code, printed)
	}
	if strings.Contains(printed, "endpoints") || config != "" {
		t.Errorf("an indexnow-key carrying YAML was echoed or written; printed:\n%s\nconfiguration:\n%s", printed, config)
	}

	// The first URL's origin ends at its query; the file's own path holds ${VAR} and ' too, and
	// sitepush must read that very file.
	leaky := sitemap("it's-${SITEPUSH_PROBE_SECRET}.xml", "https://site.example?x=${SITEPUSH_PROBE_SECRET}",
		"https://site.example/a", "https://site.example/new")
	code, printed, config = run(map[string]string{"SITEPUSH_SITEMAP": leaky, "SITEPUSH_BASELINE": built,
		"SITEPUSH_INDEXNOW_KEY": key})
	if strings.Contains(printed+config, secret) {
		t.Errorf("the value of a ${VAR} in the sitemap's path or first URL was printed or written; printed:\n%s\nconfiguration:\n%s", printed, config)
	}
	if code != 0 || !strings.Contains(printed, `"indexnow":{"due":2`) {
		t.Errorf("a dry run of the sitemap %s: exit %d, want 0 and its 2 URLs not in the baseline due; printed:\n%s\nconfiguration:\n%s",
			leaky, code, printed, config)
	}
	if !strings.Contains(config, "baseUrl: 'https://site.example'\n") {
		t.Errorf("the configuration's baseUrl is not the first URL's origin, quoted:\n%s", config)
	}

	// An input in an annotation cannot start a workflow command of its own.
	_, printed, _ = run(map[string]string{"SITEPUSH_SITEMAP": built, "SITEPUSH_BASELINE": "missing\n::error::forged 100%",
		"SITEPUSH_INDEXNOW_KEY": key})
	if !strings.Contains(printed, "::warning title=sitepush::the baseline missing%0A::error::forged 100%25 does not exist") ||
		strings.Contains(printed, "\n::error::forged") {
		t.Errorf("a baseline input holding a line break and a workflow command was not escaped in the warning:\n%s", printed)
	}
}
