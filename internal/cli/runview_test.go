package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
)

// TestRunShowsThrottling checks that a wait an engine asked for is in the summary, the notes and
// the record.
func TestRunShowsThrottling(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(3)
	w.eng.Fail(enginetest.Fault{Status: 429, RetryAfter: "1"})
	code, out, errOut := run(t, "run", "--config", w.config)
	note := "  note: indexnow: HTTP 429 from " + w.engine.URL + "/indexnow, waited "
	if code != exitOK || !strings.Contains(out, "indexnow: 3 due, 3 submitted, 0 failed, 0 already known, throttled ") ||
		!strings.Contains(out, note) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	w.publish(4)
	w.eng.Fail(enginetest.Fault{Status: 429, RetryAfter: "1"})
	code, out, _ = run(t, "run", "--config", w.config, "--json")
	var rec model.Record
	if err := json.Unmarshal([]byte(out), &rec); err != nil || code != exitOK || rec.Channels["indexnow"].ThrottledMS <= 0 ||
		len(rec.Notes) != 1 || !strings.HasPrefix("  note: "+rec.Notes[0], note) {
		t.Errorf("--json: exit %d, %v, %s", code, err, out)
	}
}

// TestRunVerbose checks that `run --verbose` lists after the summary the URLs each channel sent,
// and of one that failed, the engine's answer.
func TestRunVerbose(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(2)
	code, out, errOut := run(t, "run", "--config", w.config, "--verbose")
	// Sorted by URL.
	head := "  indexnow URLs (✓ sent, – not eligible, ✗ failed):\n"
	want := fmt.Sprintf(head+"    ✓ %[1]s/p/0\n    ✓ %[1]s/p/1\n", w.site.URL)
	if code != exitOK || !strings.HasSuffix(out, want) {
		t.Errorf("exit %d, want the summary to end with\n%s\n%s%s", code, want, out, errOut)
	}
	w.publish(3)
	w.files["/"+testKey+".txt"] = "not the key"
	code, out, errOut = run(t, "run", "--config", w.config, "--verbose")
	if _, list, _ := strings.Cut(out, head); code != exitFailed || !strings.HasPrefix(list, "    ✗ failed (1 URL): HTTP 403") ||
		!strings.Contains(list, fmt.Sprintf("key not valid: check that %s/%s.txt serves exactly the key\n      ✗ %s/p/2\n", w.site.URL, testKey, w.site.URL)) {
		t.Errorf("a failure: exit %d\n%s%s", code, out, errOut)
	}
}

// TestVerboseListsEachOutcome checks the list of `run --verbose`: per channel in delivery order,
// the URLs sent, held back with the preflight's reason, failed with the engine's answer, and how
// many more the channel answered than the record names.
func TestVerboseListsEachOutcome(t *testing.T) {
	rec := &model.Record{Channels: map[string]*model.ChannelStats{
		"indexnow": {Submitted: 1502, Failed: 2, Ineligible: 1},
		"bing":     {Submitted: 1},
		"feed":     {Skipped: 4},
	}, URLs: []model.RunURL{
		{Channel: "indexnow", URL: "https://e.example/bad", Outcome: model.URLFailed, Detail: "HTTP 403: key not valid"},
		{Channel: "indexnow", URL: "https://e.example/bad2", Outcome: model.URLFailed, Detail: "HTTP 403: key not valid"},
		{Channel: "indexnow", URL: "https://e.example/hidden", Outcome: model.URLIneligible, Detail: "noindex"},
		{Channel: "indexnow", URL: "https://e.example/a", Outcome: model.URLSubmitted},
		{Channel: "indexnow", URL: "https://e.example/gone", Outcome: model.URLRemoved},
		{Channel: "bing", URL: "https://e.example/a", Outcome: model.URLSubmitted},
	}}
	var b strings.Builder
	printURLs(&b, rec)
	want := `  indexnow URLs (✓ sent, – not eligible, ✗ failed):
    ✗ failed (2 URLs): HTTP 403: key not valid
      ✗ https://e.example/bad
      ✗ https://e.example/bad2
    – not eligible (1 URL): noindex
      – https://e.example/hidden
    ✓ https://e.example/a
    ✓ https://e.example/gone (removal notice)
    … and 1,500 more not listed
  bing URLs (✓ sent, – not eligible, ✗ failed):
    ✓ https://e.example/a
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestTheDryRunIsOneTable checks that a dry run lists its URLs once each, a column per channel:
// ✓ would be sent, the reason a preflight would hold it back, – neither; then per channel how
// many more.
func TestTheDryRunIsOneTable(t *testing.T) {
	rec := &model.Record{DryRun: true, Channels: map[string]*model.ChannelStats{
		"indexnow": {Due: 30, Ineligible: 1, Sample: []string{"https://e.example/a", "https://e.example/b"}},
		"bing":     {Due: 3, Ineligible: 2, Sample: []string{"https://e.example/a"}},
	}, URLs: []model.RunURL{{Channel: "bing", URL: "https://e.example/hidden", Outcome: model.URLIneligible, Detail: "noindex"}}}
	var b strings.Builder
	printDryTable(&b, rec)
	want := `    URL                       indexnow  bing
    https://e.example/a       ✓         ✓
    https://e.example/b       ✓         –
    https://e.example/hidden  –         noindex
    … and 27 more indexnow would send
    … and 1 more indexnow would hold back
    … and 1 more bing would hold back
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestRunQuiet(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(2)
	if code, out, errOut := run(t, "run", "--config", w.config, "--quiet"); code != exitOK || out != "" || errOut != "" {
		t.Errorf("a site that went well: exit %d, %q, %q", code, out, errOut)
	}
	w.publish(3)
	w.files["/"+testKey+".txt"] = "not the key"
	code, out, errOut := run(t, "run", "--config", w.config, "--quiet")
	if code != exitFailed || !strings.HasPrefix(out, "site demo (failed)") || !strings.Contains(out, "key not valid") ||
		!strings.Contains(errOut, "1 of 1 sites had failures") {
		t.Errorf("a site that failed: exit %d\n%s%s", code, out, errOut)
	}
}

func TestRunViewFlagsExcludeEachOther(t *testing.T) {
	w := newTestWorld(t, "")
	for _, args := range [][]string{{"--verbose", "--quiet"}, {"--json", "--verbose"}, {"--json", "--quiet"}, {"--json", "--github"}} {
		code, _, errOut := run(t, append([]string{"run", "--config", w.config}, args...)...)
		if code != exitUsage || !strings.Contains(errOut, args[1]) {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}
