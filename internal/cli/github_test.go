package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
)

// TestAnnotations: an ::error per error of a run, with the engine's answer and the fix as the
// record says them, one when a failed run says no error, a ::warning per channel's URLs held
// back; what a record quotes is escaped so that it cannot end the command or start another.
func TestAnnotations(t *testing.T) {
	tests := []struct {
		name, record string
		want         []string
	}{
		{"an error", `{"site":"ci","status":"failed","channels":{"indexnow":{"due":3,"failed":3}},"errors":["indexnow: HTTP 403 Forbidden: key not valid: check that https://x/K.txt serves exactly the key"]}`,
			[]string{"::error title=sitepush%3A site ci::indexnow: HTTP 403 Forbidden: key not valid: check that https://x/K.txt serves exactly the key"}},
		{"a failed run without an error", `{"site":"ci","status":"partial","channels":{}}`,
			[]string{"::error title=sitepush%3A site ci::the run ended partial: see the summary above"}},
		{"left by the run's end", `{"site":"ci","status":"budget_exhausted","stopped":true,"channels":{"indexnow":{"due":4,"submitted":3,"left":1}}}`,
			[]string{"::warning title=sitepush%3A site ci::indexnow: 1 URL left unsent when the run stopped"}},
		{"held back", `{"site":"ci","status":"ok","channels":{"bing":{"due":12,"submitted":2,"held":7,"ineligible":3,"ineligibleBy":{"noindex":2,"status":1}},"indexnow":{"due":4,"left":1}}}`,
			[]string{"::warning title=sitepush%3A site ci::indexnow: 1 URL left unsent",
				"::warning title=sitepush%3A site ci::bing: 7 URLs held back by the quota, not sent",
				"::warning title=sitepush%3A site ci::bing: 3 URLs not eligible, not sent (2 noindex, 1 status)"}},
		{"escaped", `{"site":"a,b","status":"failed","channels":{},"errors":["100% gone\r\n::error::forged"]}`,
			[]string{"::error title=sitepush%3A site a%2Cb::100%25 gone%0D%0A::error::forged"}},
		{"all well", `{"site":"ci","status":"ok","channels":{"indexnow":{"due":3,"submitted":3}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec model.Record
			if err := json.Unmarshal([]byte(tt.record), &rec); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			printAnnotations(&b, &rec)
			got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if b.Len() == 0 {
				got = nil
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestStepSummary: the Markdown account of a run gives each channel's counts always, and the
// URLs the record names (its urls) per channel and outcome when it names them: the failed with
// the engine's answer, the held back with the reason, the submitted; a dry run's sample when it
// names none. What a record quotes is shown as written, not read as markup.
func TestStepSummary(t *testing.T) {
	const counts = `"channels":{"indexnow":{"due":4,"submitted":1,"failed":2,"ineligible":1,"ineligibleBy":{"noindex":1}},"bing":{"due":1,"held":1}}`
	tests := []struct {
		name, record string
		want, not    []string
	}{
		{"with its URLs", `{"site":"ci","status":"partial","totalUrls":4,"sitemaps":{"read":1},` + counts + `,"errors":["indexnow: HTTP 403: *key* not valid"],
			"urls":[{"channel":"indexnow","url":"https://x/a","outcome":"submitted"},{"channel":"indexnow","url":"https://x/b","outcome":"failed","detail":"HTTP 403 key not valid"},{"channel":"indexnow","url":"https://x/b2","outcome":"failed","detail":"HTTP 403 key not valid"},
			{"channel":"indexnow","url":"https://x/c","outcome":"ineligible","detail":"noindex"},{"channel":"bing","url":"https://x/d","outcome":"removed"}]}`,
			[]string{"### sitepush: site ci (partial)\n\n4 URLs from 1 sitemap in ",
				"| Channel | Due | Submitted | Failed | Already known | Older than the first run's backlog, not sent | Unchanged since the baseline, not sent | Held back by the quota | Not eligible | Left unsent |",
				"| indexnow | 4 | 1 | 2 | 0 | 0 | 0 | 0 | 1 | 0 |\n| bing | 1 | 0 | 0 | 0 | 0 | 0 | 1 | 0 | 0 |",
				"**Errors**\n\n- indexnow: HTTP 403: \\*key\\* not valid\n",
				"#### indexnow\n\nFailed, with the engine's answer (2):\n\n- HTTP 403 key not valid (2):\n  - `https://x/b`\n  - `https://x/b2`\n\n" +
					"Not eligible, with the preflight's reason (1):\n\n- noindex (1):\n  - `https://x/c`\n\nSubmitted (1):\n\n- `https://x/a`\n",
				"#### bing\n\nRemoval notices sent (1):\n\n- `https://x/d`\n"},
			nil},
		{"without", `{"site":"ci","status":"partial",` + counts + `}`,
			[]string{"| indexnow | 4 | 1 | 2 | 0 | 0 | 0 | 0 | 1 | 0 |"}, []string{"####", "https://x/"}},
		{"a dry run's sample", `{"site":"ci","status":"ok","dryRun":true,"channels":{"indexnow":{"due":2,"sample":["https://x/a","https://x/b"]}}}`,
			[]string{"### sitepush: site ci (dry run, nothing submitted)", "| indexnow | 2 | 2 (would be) |",
				"#### indexnow\n\nWould be submitted (2):\n\n- `https://x/a`\n- `https://x/b`\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec model.Record
			if err := json.Unmarshal([]byte(tt.record), &rec); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			writeStepSummary(&b, &rec)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("holds %q:\n%s", n, b.String())
				}
			}
		})
	}
}

// TestStepSummaryBoundsItsLists: a long list of URLs is cut; each outcome is headed by how many
// URLs had it — the channel's counter, beyond the URLs a record names — and the rest is counted.
func TestStepSummaryBoundsItsLists(t *testing.T) {
	named := model.Record{Site: "ci", Status: model.StatusOK, Channels: map[string]*model.ChannelStats{"indexnow": {Due: 4000, Submitted: 4000}}}
	for i := range 1000 {
		named.URLs = append(named.URLs, model.RunURL{Channel: "indexnow", URL: fmt.Sprintf("https://x/%d", i), Outcome: "submitted"})
	}
	dry := model.Record{Site: "ci", Status: model.StatusOK, DryRun: true, Channels: map[string]*model.ChannelStats{"indexnow": {Due: 5000}}}
	for i := range 20 {
		dry.Channels["indexnow"].Sample = append(dry.Channels["indexnow"].Sample, fmt.Sprintf("https://x/%d", i))
	}
	for _, tt := range []struct {
		name   string
		rec    *model.Record
		listed int
		want   []string
	}{
		{"named", &named, stepSummaryURLs, []string{"Submitted (4,000):\n", "- … and 3,900 more, not listed here\n"}},
		{"a dry run's sample", &dry, 20, []string{"Would be submitted (5,000):\n", "- … and 4,980 more, not listed here\n"}},
	} {
		var b strings.Builder
		writeStepSummary(&b, tt.rec)
		if n := strings.Count(b.String(), "- `https://x/"); n != tt.listed {
			t.Errorf("%s: %d URLs listed, want %d:\n%s", tt.name, n, tt.listed, b.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: lacks %q:\n%s", tt.name, w, b.String())
			}
		}
	}
}

// TestRunForAGitHubStep: run --json-out --github --step-summary, as the Action runs it with
// state: memory and an IndexNow that fails: one pass prints the summary, an ::error with the
// engine's answer, writes the record to the file and the account to the step summary (appended
// to what the job wrote before), and promises no next run that no state will remember.
func TestRunForAGitHubStep(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(2)
	config := strings.NewReplacer("state: sqlite:state.db", "state: memory", "interval: 1ms,", "interval: 1ms, maxRetries: 0,").Replace(readFile(t, w.config))
	os.WriteFile(w.config, []byte(config), 0o644)
	w.eng.Fail(enginetest.Fault{Status: 503})
	dir := t.TempDir()
	records, steps := filepath.Join(dir, "record.jsonl"), filepath.Join(dir, "summary.md")
	os.WriteFile(steps, []byte("an earlier step's\n"), 0o644)
	code, out, errOut := run(t, "run", "--config", w.config, "--json-out", records, "--github", "--step-summary", steps)
	if code != exitFailed || !strings.Contains(out, "site demo (failed): 2 URLs from 1 sitemap") ||
		!strings.Contains(out, "\n::error title=sitepush%3A site demo::indexnow: HTTP 503") {
		t.Errorf("exit %d, want %d, the summary and an ::error with the engine's answer:\n%s%s", code, exitFailed, out, errOut)
	}
	if strings.Contains(strings.ToLower(out+errOut), "next run") {
		t.Errorf("with state: memory the run promises a next run:\n%s%s", out, errOut)
	}
	var rec model.Record
	if err := json.Unmarshal([]byte(readFile(t, records)), &rec); err != nil || rec.Site != "demo" || rec.Channels["indexnow"].Failed != 2 {
		t.Errorf("--json-out: %v %+v", err, rec)
	}
	if got := readFile(t, steps); !strings.HasPrefix(got, "an earlier step's\n### sitepush: site demo (failed)") || !strings.Contains(got, "| indexnow | 2 | 0 | 2 |") {
		t.Errorf("--step-summary:\n%s", got)
	}
	if code, _, errOut := run(t, "run", "--config", w.config, "--json-out", filepath.Join(dir, "none", "r.jsonl")); code != exitUsage || !strings.Contains(errOut, "--json-out") {
		t.Errorf("a --json-out that cannot be written: exit %d, want %d before anything runs: %s", code, exitUsage, errOut)
	}
}

// TestMarkdownShowsTextAsWritten: what an engine's answer holds is shown, not read as Markdown —
// an entity, a list it would open at the start of a line.
func TestMarkdownShowsTextAsWritten(t *testing.T) {
	for in, want := range map[string]string{
		"&lt;b&gt;":       `\&lt;b\&gt;`,
		"1986. the year":  `1986\. the year`,
		"12) twelve":      `12\) twelve`,
		"- a dash":        `\- a dash`,
		"+ plus":          `\+ plus`,
		"a-b 3. c":        "a-b 3. c",
		"HTTP 403: *key*": `HTTP 403: \*key\*`,
	} {
		if got := markdown(in); got != want {
			t.Errorf("markdown(%q) = %q; want %q", in, got, want)
		}
	}
}
