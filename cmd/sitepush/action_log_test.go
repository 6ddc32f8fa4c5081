package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheActionTellsWhatHappened runs scripts/github-action.sh as a GitHub step does — with
// GITHUB_OUTPUT and GITHUB_STEP_SUMMARY set, a configuration of state: memory — once against an
// IndexNow that refuses the key (403) and once with the key it accepts. The step's log holds
// sitepush's summary, an ::error with the engine's answer and the fix when it failed, and no
// promise of a next run (state: memory keeps nothing); the job's summary page gets the counts;
// the outputs are written as before, the record without its URL lists (the summary has them).
func TestTheActionTellsWhatHappened(t *testing.T) {
	w := newActionWorld(t)
	w.publish("/sitemap.xml", "/a 2026-02-01", "/b 2026-02-01")
	w.publish("/live.xml")
	tests := []struct {
		name, key   string
		code        int
		log, output []string
		summary     []string
	}{
		{"refused", "WRONGKEY0000", 1,
			[]string{"site ci (failed): 2 URLs from 1 sitemap", "indexnow: 2 due, 0 submitted, 2 failed",
				"\n::error title=sitepush%3A site ci::indexnow: HTTP 403 Forbidden from " + w.indexnow.URL + "/indexnow (the engine said \"key file",
				"key not valid: check that " + w.site.URL + "/WRONGKEY0000.txt serves exactly the key\n",
				"error: 1 of 1 sites had failures (see above)"},
			[]string{"submitted<<", "\n0\n", "failed<<", "\n2\n", `"status":"failed"`},
			[]string{"### sitepush: site ci (failed)", "| indexnow | 2 | 0 | 2 | 0 | 0 | 0 | 0 |", "**Errors**\n\n- indexnow: HTTP 403 Forbidden",
				"Failed, with the engine's answer (2):\n\n- HTTP 403 Forbidden", " (2):\n  - `" + w.site.URL + "/"}},
		{"accepted", actionKey, 0,
			[]string{"site ci (ok): 2 URLs from 1 sitemap", "indexnow: 2 due, 2 submitted, 0 failed"},
			[]string{"submitted<<", "\n2\n", "failed<<", "\n0\n", `"status":"ok"`},
			[]string{"### sitepush: site ci (ok)", "| indexnow | 2 | 2 | 0 | 0 | 0 | 0 | 0 |", "Submitted (2):\n\n- `" + w.site.URL + "/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := w.config("state: memory\nsites:\n  - id: ci\n    sitemaps: [%[1]s/sitemap.xml]\n" +
				"    indexnow: {enabled: true, key: " + tt.key + ", endpoints: [%[2]s], interval: 1ms, maxRetries: 0}\n")
			temp := t.TempDir()
			output, summary := filepath.Join(temp, "output"), filepath.Join(temp, "summary")
			cmd := exec.Command("bash", w.script)
			cmd.Dir = w.ws
			cmd.Env = append(os.Environ(), "SITEPUSH_TEST_AS_MAIN=1", "SITEPUSH_BINARY="+w.self, "RUNNER_TEMP="+temp,
				"GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary, "SITEPUSH_CONFIG_FILE="+config,
				"SITEPUSH_BASELINE="+w.site.URL+"/live.xml")
			b, err := cmd.CombinedOutput()
			if _, ok := err.(*exec.ExitError); err != nil && !ok {
				t.Fatal(err)
			}
			log := string(b)
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			for _, want := range tt.log {
				if !strings.Contains(log, want) {
					t.Errorf("the log lacks %q:\n%s", want, log)
				}
			}
			if tt.code == 0 && strings.Contains(log, "::error") {
				t.Errorf("a run that went well logs an ::error:\n%s", log)
			}
			if strings.Contains(strings.ToLower(log), "next run") {
				t.Errorf("with state: memory the log promises a next run:\n%s", log)
			}
			if got, _ := os.ReadFile(output); strings.Contains(string(got), `"urls"`) {
				t.Errorf("the record output carries the run's URL lists, which may pass the 1 MB of a job's outputs:\n%s", got)
			}
			for file, wants := range map[string][]string{output: tt.output, summary: tt.summary} {
				got, _ := os.ReadFile(file)
				for _, want := range wants {
					if !strings.Contains(string(got), want) {
						t.Errorf("%s lacks %q:\n%s", filepath.Base(file), want, got)
					}
				}
			}
		})
	}
}

// TestTheActionRefusesAnOlderSitepush: a release older than the script, whose run lacks the flags
// the script gives it, is refused with the fix (exit 2), before it runs.
func TestTheActionRefusesAnOlderSitepush(t *testing.T) {
	w := newActionWorld(t)
	old := filepath.Join(t.TempDir(), "sitepush")
	os.WriteFile(old, []byte("#!/bin/sh\n[ \"$2\" = --help ] && echo --json --verbose && exit 0\necho old-sitepush-ran >&2\nexit 0\n"), 0o755)
	config := w.config("state: memory\nsites:\n  - id: ci\n    sitemaps: [%[1]s/sitemap.xml]\n")
	r := w.run(map[string]string{"SITEPUSH_BINARY": old, "SITEPUSH_CONFIG_FILE": config, "SITEPUSH_VERSION": "v0.9.0"})
	if r.code != 2 || !strings.Contains(r.printed, "::error title=sitepush::the sitepush installed (version v0.9.0) is older than this action") ||
		strings.Contains(r.printed, "old-sitepush-ran") {
		t.Errorf("an older sitepush: exit %d, want 2, said and not run:\n%s", r.code, r.printed)
	}
}
