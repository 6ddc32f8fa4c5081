package main

import (
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sitepush/sitepush/internal/enginetest"
)

// actionKey is the IndexNow key of the website of actionWorld.
const actionKey = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

// actionWorld is a website and IndexNow on loopback, and a workspace with a built site in public/,
// where scripts/github-action.sh runs as action.yml's step does, with the directory the Actions
// cache would restore and save (SITEPUSH_STATE_DIR), kept from run to run as the cache keeps it.
type actionWorld struct {
	t                     *testing.T
	files                 enginetest.Files
	site, indexnow        *httptest.Server
	engine                *enginetest.IndexNow
	self, script, ws, dir string
}

func newActionWorld(t *testing.T) *actionWorld {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	w := &actionWorld{t: t, files: enginetest.Files{"/" + actionKey + ".txt": actionKey}, engine: &enginetest.IndexNow{FetchKey: enginetest.FetchOverHTTP}}
	w.site = httptest.NewServer(w.files)
	t.Cleanup(w.site.Close)
	w.indexnow = httptest.NewServer(w.engine)
	t.Cleanup(w.indexnow.Close)
	var err error
	if w.self, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	if w.script, err = filepath.Abs(filepath.Join("..", "..", "scripts", "github-action.sh")); err != nil {
		t.Fatal(err)
	}
	w.ws, w.dir = t.TempDir(), filepath.Join(t.TempDir(), "sitepush-state")
	if err := os.Mkdir(filepath.Join(w.ws, "public"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// publish serves a sitemap at path listing the pages given as "PATH LASTMOD", and the pages.
func (w *actionWorld) publish(path string, pages ...string) {
	var b strings.Builder
	b.WriteString("<urlset>")
	for _, p := range pages {
		page, lm, _ := strings.Cut(p, " ")
		fmt.Fprintf(&b, "<url><loc>%s%s</loc><lastmod>%s</lastmod></url>", w.site.URL, page, lm)
		w.files[page] = "<!doctype html><title>" + page + "</title>"
	}
	w.files[path] = b.String() + "</urlset>"
}

// config writes a configuration file of the given text, its %[1]s the website, %[2]s the
// IndexNow endpoint and %[3]s the key, and returns its path.
func (w *actionWorld) config(text string) string {
	path := filepath.Join(w.t.TempDir(), "sitepush.yaml")
	if err := os.WriteFile(path, fmt.Appendf(nil, text, w.site.URL, w.indexnow.URL+"/indexnow", actionKey), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return path
}

// actionRun is what a run of the script did: its exit code, its outputs, what it printed, and
// the configuration it made ("" when it made none).
type actionRun struct {
	code                   int
	outputs, printed, made string
}

// run runs the script in the workspace with site-dir public and the inputs, which may override
// those and anything else of the environment.
func (w *actionWorld) run(inputs map[string]string) actionRun {
	w.t.Helper()
	temp := w.t.TempDir()
	out := filepath.Join(temp, "output")
	cmd := exec.Command("bash", w.script)
	cmd.Dir = w.ws
	cmd.Env = append(os.Environ(), "SITEPUSH_TEST_AS_MAIN=1", "SITEPUSH_BINARY="+w.self, "RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+out,
		"SITEPUSH_STATE_DIR="+w.dir, "SITEPUSH_SITE_DIR=public")
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var printed strings.Builder
	cmd.Stderr = &printed
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			w.t.Fatal(err)
		}
	}
	outputs, _ := os.ReadFile(out)
	made, _ := os.ReadFile(filepath.Join(temp, "sitepush-action", "sitepush.yaml"))
	return actionRun{code: cmd.ProcessState.ExitCode(), outputs: string(outputs), printed: printed.String(), made: string(made)}
}

// sent returns the URLs IndexNow accepted after the first before, sorted.
func (w *actionWorld) sent(before int) []string {
	got := slices.Clone(w.engine.Accepted()[before:])
	slices.Sort(got)
	return got
}

// TestTheActionsScriptKeepsItsState: the first run, with no state, takes the baseline; the next
// reads the state it left, not the baseline, and sends only what changed since; a dry run leaves
// nothing to save, and a run that died leaves what it recorded. A configuration given whole reads
// the state's file and the site's directory, made absolute, from the environment.
func TestTheActionsScriptKeepsItsState(t *testing.T) {
	w := newActionWorld(t)
	inputs := map[string]string{"SITEPUSH_BASELINE": w.site.URL + "/live.xml", "SITEPUSH_CONFIG_FILE": w.config("state: \"sqlite:${SITEPUSH_STATE_FILE}\"\n" +
		"sites:\n  - id: ci\n    sitemaps: [%[1]s/sitemap.xml]\n    changes: {dir: \"${SITEPUSH_SITE_DIR}\"}\n" +
		"    indexnow: {enabled: true, key: %[3]s, endpoints: [%[2]s], interval: 1ms}\n")}

	w.publish("/live.xml", "/a 2026-01-01", "/b 2026-01-01", "/c 2026-01-01")
	w.publish("/sitemap.xml", "/a 2026-01-01", "/b 2026-02-01", "/c 2026-01-01", "/new 2026-02-01")
	r := w.run(inputs)
	if got, want := w.sent(0), []string{w.site.URL + "/b", w.site.URL + "/new"}; r.code != 0 || !slices.Equal(got, want) {
		t.Errorf("the first run, with no state: exit %d, IndexNow got %v; want %v, what the baseline does not cover\n%s", r.code, got, want, r.printed)
	}
	if !strings.Contains(r.printed, "--baseline "+w.site.URL+"/live.xml") || !strings.Contains(r.outputs, "state<<") || !strings.Contains(r.outputs, "\n"+w.dir+"\n") {
		t.Errorf("the first run took no baseline, or left no state to save; outputs:\n%s\nprinted:\n%s", r.outputs, r.printed)
	}

	// The next build, over the same live sitemap, which would count /b and /new as changed again.
	w.publish("/sitemap.xml", "/a 2026-01-01", "/b 2026-02-01", "/c 2026-03-01", "/new 2026-02-01", "/new2 2026-03-01")
	r = w.run(inputs)
	if got, want := w.sent(2), []string{w.site.URL + "/c", w.site.URL + "/new2"}; r.code != 0 || !slices.Equal(got, want) {
		t.Errorf("the run over the kept state: exit %d, IndexNow got %v; want %v, what changed since the first run\n%s", r.code, got, want, r.printed)
	}
	if strings.Contains(r.printed, "--baseline") || !strings.Contains(r.printed, "::notice title=sitepush::sitepush's state was restored from the cache") ||
		!strings.Contains(r.outputs, "state<<") {
		t.Errorf("the run over the kept state read the baseline, said nothing of the state, or left none to save; outputs:\n%s\nprinted:\n%s", r.outputs, r.printed)
	}

	inputs["SITEPUSH_DRY_RUN"] = "true"
	if r = w.run(inputs); r.code != 0 || strings.Contains(r.outputs, "state<<") {
		t.Errorf("a dry run: exit %d, and a state to save in its outputs:\n%s\n%s", r.code, r.outputs, r.printed)
	}

	// A sitepush that dies after it recorded a delivery, before any record of the run (in a state
	// of its own: the file it writes is no database); its help names the flags the script gives.
	crash := filepath.Join(t.TempDir(), "sitepush")
	os.WriteFile(crash, []byte("#!/bin/sh\n[ \"$2\" = --help ] && echo --json-out --github --step-summary && exit 0\necho sent >>\"$SITEPUSH_STATE_FILE\"\nexit 3\n"), 0o755)
	r = w.run(map[string]string{"SITEPUSH_CONFIG_FILE": inputs["SITEPUSH_CONFIG_FILE"], "SITEPUSH_BINARY": crash, "SITEPUSH_STATE_DIR": t.TempDir()})
	if r.code != 3 || !strings.Contains(r.outputs, "state<<") {
		t.Errorf("a run that died: exit %d, want 3 and its state to save; outputs:\n%s\n%s", r.code, r.outputs, r.printed)
	}
	if left, _ := os.ReadDir(w.ws); len(left) != 1 {
		t.Errorf("the script left %d files in the workspace, want only public/ (the state is kept outside it)", len(left))
	}
}

// TestTheActionsScriptSiteDir: the configuration made from the inputs keeps the state in the
// cache's directory unless cache is false, and reads the pages from site-dir, made absolute; a
// site-dir that is no directory is refused, and one a configuration given whole does not read is
// warned about.
func TestTheActionsScriptSiteDir(t *testing.T) {
	w := newActionWorld(t)
	w.publish("/sitemap.xml", "/a 2026-01-01")
	made := map[string]string{"SITEPUSH_SITEMAP": w.site.URL + "/sitemap.xml", "SITEPUSH_INDEXNOW_KEY": actionKey, "SITEPUSH_DRY_RUN": "true"}
	r := w.run(made)
	if r.code != 0 || !strings.Contains(r.made, "state: 'sqlite:"+w.dir+"/sitepush.db'\n") ||
		!strings.Contains(r.made, "    changes: {dir: '"+filepath.Join(w.ws, "public")+"'}\n") {
		t.Errorf("the configuration made from the inputs: exit %d\n%s\nprinted:\n%s", r.code, r.made, r.printed)
	}
	made["SITEPUSH_CACHE"] = "false"
	if r = w.run(made); r.code != 0 || !strings.Contains(r.made, "state: memory\n") {
		t.Errorf("cache: false: exit %d, the configuration made:\n%s", r.code, r.made)
	}
	made["SITEPUSH_CACHE"] = "yes"
	if r = w.run(made); r.code != 2 || !strings.Contains(r.printed, "::error title=sitepush::cache must be true or false, got yes") {
		t.Errorf("cache: yes: exit %d, want 2; printed:\n%s", r.code, r.printed)
	}
	delete(made, "SITEPUSH_CACHE")

	made["SITEPUSH_SITE_DIR"] = "public\n::error::forged"
	if r = w.run(made); r.code != 2 || strings.Contains(r.printed, "\n::error::forged") ||
		!strings.Contains(r.printed, "::error title=sitepush::the input site-dir holds a control character") {
		t.Errorf("a site-dir holding a line break: exit %d, want 2 and the input refused; printed:\n%s", r.code, r.printed)
	}
	made["SITEPUSH_SITE_DIR"] = "dist"
	if r = w.run(made); r.code != 2 || r.made != "" || !strings.Contains(r.printed, "::error title=sitepush::the input site-dir dist is not a directory") {
		t.Errorf("a site-dir that is no directory: exit %d, want 2 and the input refused; printed:\n%s", r.code, r.printed)
	}
	plain := w.config("state: memory\nsites:\n  - id: ci\n    sitemaps: [%[1]s/sitemap.xml]\n    indexnow: {enabled: true, key: %[3]s}\n")
	r = w.run(map[string]string{"SITEPUSH_CONFIG_FILE": plain, "SITEPUSH_DRY_RUN": "true"})
	if r.code != 0 || !strings.Contains(r.printed, "::warning title=sitepush::site-dir is not read: the config input names no ${SITEPUSH_SITE_DIR}") {
		t.Errorf("site-dir beside a configuration that does not read it: exit %d; printed:\n%s", r.code, r.printed)
	}
}

// TestTheActionKeepsItsStateInTheCache reads action.yml: every input reaches the script's step,
// each variable of that step is one the script reads, and the state the script keeps is the
// directory the cache restores before the step and saves after it — under the same key, pinned
// releases of actions/cache, and whatever the step's outcome.
func TestTheActionKeepsItsStateInTheCache(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "github-action.sh"))
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		ID, If, Uses, Run string
		Env, With         map[string]string
	}
	var action struct {
		Inputs map[string]any
		Runs   struct{ Steps []step }
	}
	if err := yaml.Unmarshal(text, &action); err != nil {
		t.Fatal(err)
	}
	steps := map[string]step{}
	for _, s := range action.Runs.Steps {
		name, version, _ := strings.Cut(s.Uses, "@")
		if s.Uses != "" && !regexp.MustCompile(`^v[0-9]+$`).MatchString(version) {
			t.Errorf("%s is not pinned to a major release (@v4)", s.Uses)
		}
		steps[s.ID+name] = s
	}
	run, restore, save := steps["run"], steps["actions/cache/restore"], steps["actions/cache/save"]
	for name := range action.Inputs {
		if !slices.Contains(slices.Collect(maps.Values(run.Env)), "${{ inputs."+name+" }}") {
			t.Errorf("the input %s does not reach the script: no variable of its step is ${{ inputs.%s }}", name, name)
		}
	}
	for name := range run.Env {
		if !strings.Contains(string(script), "${"+name) && !strings.Contains(string(script), "$"+name) {
			t.Errorf("the script reads no %s", name)
		}
	}
	if restore.With["path"] == "" || restore.With["path"] != save.With["path"] || run.Env["SITEPUSH_STATE_DIR"] != restore.With["path"] {
		t.Errorf("the state's directory: restored %q, saved %q, the script's %q; want one", restore.With["path"], save.With["path"], run.Env["SITEPUSH_STATE_DIR"])
	}
	if restore.With["key"] == "" || restore.With["key"] != save.With["key"] || !strings.HasPrefix(restore.With["key"], restore.With["restore-keys"]) {
		t.Errorf("the cache's key: restored %q (restore-keys %q), saved %q; want one, each run's own, under the prefix restored",
			restore.With["key"], restore.With["restore-keys"], save.With["key"])
	}
	if restore.If != "inputs.cache == 'true'" || steps["key"].If != restore.If || save.If != "always() && steps.run.outputs.state != ''" {
		t.Errorf("restored if %q, key if %q, saved if %q: want the cache input to turn both on, and a save whatever the run's outcome",
			restore.If, steps["key"].If, save.If)
	}
}
