package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
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

func TestRunVerbose(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(2)
	code, out, errOut := run(t, "run", "--config", w.config, "--verbose")
	// Sent in hash order: either may come first.
	want := fmt.Sprintf("  indexnow URLs sent (✓ accepted, ✗ failed):\n    ✓ %[1]s/p/0\n    ✓ %[1]s/p/1\n", w.site.URL)
	swapped := fmt.Sprintf("  indexnow URLs sent (✓ accepted, ✗ failed):\n    ✓ %[1]s/p/1\n    ✓ %[1]s/p/0\n", w.site.URL)
	if code != exitOK || !strings.HasSuffix(out, want) && !strings.HasSuffix(out, swapped) {
		t.Errorf("exit %d, want the summary to end with\n%s\n%s%s", code, want, out, errOut)
	}
	w.publish(3)
	w.files["/"+testKey+".txt"] = "not the key"
	code, out, errOut = run(t, "run", "--config", w.config, "--verbose")
	if code != exitFailed || !strings.HasSuffix(out, fmt.Sprintf("  indexnow URLs sent (✓ accepted, ✗ failed):\n    ✗ %s/p/2\n", w.site.URL)) {
		t.Errorf("a failure: exit %d\n%s%s", code, out, errOut)
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
	for _, args := range [][]string{{"--verbose", "--quiet"}, {"--json", "--verbose"}, {"--json", "--quiet"}} {
		code, _, errOut := run(t, append([]string{"run", "--config", w.config}, args...)...)
		if code != exitUsage || !strings.Contains(errOut, "--quiet") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

func TestSentURLsAreBounded(t *testing.T) {
	s := newSentURLs()
	var many []channel.Due
	for i := range maxListed + 3 {
		many = append(many, channel.Due{URL: fmt.Sprintf("https://e.example/%d", i)})
	}
	s.outcome("s", channel.Outcome{Channel: "feed", URLs: many[:1], Unsent: model.UnsentBacklog})
	s.outcome("s", channel.Outcome{Channel: "indexnow", URLs: many[:2], Delivered: true})
	s.outcome("s", channel.Outcome{Channel: "indexnow", URLs: many[2:3], Rejected: true, Err: "refused"})
	s.outcome("s", channel.Outcome{Channel: "indexnow", URLs: many[3:], Delivered: true})
	s.outcome("s", channel.Outcome{Channel: "bing", URLs: many[:1], Err: "HTTP 500"})
	var out bytes.Buffer
	s.print(&out)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		"  indexnow URLs sent (✓ accepted, ✗ failed):",
		"    ✓ https://e.example/0",
		"    ✓ https://e.example/1",
		"    ✗ https://e.example/2 (refused: not sent again until it changes)",
		"    ✓ https://e.example/3",
	}
	if len(lines) != maxListed+4 || !slices.Equal(lines[:5], want) ||
		lines[maxListed+1] != "    … and 3 more" || lines[maxListed+2] != "  bing URLs sent (✓ accepted, ✗ failed):" || lines[maxListed+3] != "    ✗ https://e.example/0" {
		t.Errorf("%d lines, starting %q, then %q", len(lines), lines[:min(6, len(lines))], lines[max(0, len(lines)-3):])
	}
	out.Reset()
	if s.print(&out); out.Len() != 0 {
		t.Errorf("a second site shows the first one's URLs: %q", out.String())
	}
}
