package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// unsetVar is a variable no test sets: what a cron job's environment lacks.
const unsetVar = "SITEPUSH_TEST_NEVER_SET"

// TestServeTokensDoNotStopTheCommands: adminToken and metricsToken from a variable the
// environment lacks, as docs/api.md advises writing them, stop serve only; check tells of them.
func TestServeTokensDoNotStopTheCommands(t *testing.T) {
	os.Unsetenv(unsetVar)
	w := newTestWorld(t, "    feed: {enabled: true, fetchTitles: false}\n")
	w.publish(5)
	cfg := readFile(t, w.config)
	writeFile(t, w.config, strings.Replace(cfg, "state: sqlite:state.db\n",
		"state: sqlite:state.db\nadminToken: ${"+unsetVar+"}\nmetricsToken: ${"+unsetVar+"}\n", 1))

	for _, args := range [][]string{{"run"}, {"submit", "--site", "demo", w.site.URL + "/p/new"}, {"feed", "--site", "demo"}} {
		if code, out, errOut := run(t, append(args, "--config", w.config)...); code != exitOK {
			t.Errorf("sitepush %s: exit %d\n%s%s", args[0], code, out, errOut)
		}
	}
	if n := len(w.eng.Accepted()); n != 6 {
		t.Errorf("the engine accepted %d URLs, want the 5 pages and the one submitted", n)
	}
	code, out, errOut := run(t, "check", "--config", w.config)
	if code != exitOK || !strings.Contains(out, "! adminToken (line 2): environment variable "+unsetVar+" is not set; sitepush serve") ||
		!strings.Contains(out, "! metricsToken (line 3): environment variable "+unsetVar+" is not set; sitepush serve needs it") {
		t.Errorf("check: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, "serve", "--config", w.config)
	if code != exitUsage || !strings.Contains(errOut, "line 2: environment variable "+unsetVar+" is not set") {
		t.Errorf("serve: exit %d, want 2 naming the variable and the line\n%s%s", code, out, errOut)
	}
}

// TestAChannelLeftOutNeedsNoKey: a run of one channel does not read another's key; a run of
// every channel, and check, do.
func TestAChannelLeftOutNeedsNoKey(t *testing.T) {
	os.Unsetenv(unsetVar)
	w := newTestWorld(t, "    bing:\n      enabled: true\n      apiKey: ${"+unsetVar+"}\n")
	w.publish(5)
	if code, out, errOut := run(t, "run", "--config", w.config, "--channel", "indexnow"); code != exitOK || len(w.eng.Accepted()) != 5 {
		t.Errorf("run --channel indexnow: exit %d, %d accepted\n%s%s", code, len(w.eng.Accepted()), out, errOut)
	}
	for _, args := range [][]string{{"run"}, {"check"}, {"run", "--channel", "bing"}} {
		code, out, errOut := run(t, append(args, "--config", w.config)...)
		if code != exitUsage || !strings.Contains(out+errOut, "line 10: environment variable "+unsetVar+" is not set") {
			t.Errorf("%s: exit %d, want 2 naming the variable and the line\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// TestCheckTellsAConfigurationErrorOnce: a configuration that does not load, for a variable it
// lacks, is told once, with its file named once; check --json keeps it as its one failed check.
func TestCheckTellsAConfigurationErrorOnce(t *testing.T) {
	os.Unsetenv(unsetVar)
	w := newTestWorld(t, "")
	writeFile(t, w.config, strings.Replace(readFile(t, w.config), "key: "+testKey, "key: \"${"+unsetVar+"}\"", 1))
	code, out, errOut := run(t, "check", "--config", w.config)
	want := w.config + ": line 7: environment variable " + unsetVar + " is not set"
	if code != exitUsage || strings.Count(out+errOut, unsetVar+" is not set") != 1 || !strings.Contains(errOut, "error: "+want) {
		t.Errorf("check: exit %d; want 2 and %q once\n%s%s", code, want, out, errOut)
	}
	code, out, _ = run(t, "check", "--config", w.config, "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitUsage || len(rep.Checks) != 1 ||
		!strings.HasPrefix(rep.Checks[0].Message, "configuration "+want) {
		t.Errorf("check --json: exit %d, %v\n%s", code, err, out)
	}
}
