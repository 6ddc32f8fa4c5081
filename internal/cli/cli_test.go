package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// run runs sitepush with args and returns its exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		out, err string
	}{
		{nil, exitUsage, "", "Usage:"},
		{[]string{"--help"}, exitOK, "sitepush urls SITEMAP", ""},
		{[]string{"help"}, exitOK, "sitepush version", ""},
		{[]string{"urlz"}, exitUsage, "", `unknown command "urlz" (did you mean urls?); the commands are init, run, submit, serve, check, feed, inspect, urls, diff, key, health, version`},
		{[]string{"help", "urls"}, exitOK, "Usage: sitepush urls SITEMAP", ""},
		{[]string{"help", "run"}, exitOK, "--dry-run", ""},
		{[]string{"help", "nope"}, exitUsage, "", `unknown command "nope"`},
		{[]string{"urls"}, exitUsage, "", "usage: sitepush urls SITEMAP"},
		{[]string{"urls", "a", "b"}, exitUsage, "", "usage: sitepush urls SITEMAP"},
		{[]string{"urls", "a", "--format", "xml"}, exitUsage, "", `--format must be one of text, tsv, jsonl, not "xml"`},
		{[]string{"urls", "a", "--frmat", "tsv"}, exitUsage, "", "unknown flag --frmat (did you mean --format?)"},
		{[]string{"run", "--dryrun"}, exitUsage, "", "unknown flag --dryrun (did you mean --dry-run?)"},
		{[]string{"run", "--zzz"}, exitUsage, "", "unknown flag --zzz; see sitepush run --help"},
		{[]string{"urls", "--help"}, exitOK, "--format FORMAT", ""},
		{[]string{"urls", "-h"}, exitOK, "--user-agent UA", ""},
		{[]string{"version", "extra"}, exitUsage, "", "usage: sitepush version"},
		{[]string{"--version", "extra"}, exitUsage, "", "usage: sitepush version"},
		{[]string{"health", "a", "b"}, exitUsage, "", "usage: sitepush health [URL]"},
	}
	for _, tc := range tests {
		code, out, errOut := run(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.err) {
			t.Errorf("sitepush %q: exit %d, stdout %q, stderr %q; want exit %d, stdout ~%q, stderr ~%q",
				tc.args, code, out, errOut, tc.code, tc.out, tc.err)
		}
	}
}

// TestEveryFlagIsInItsCommandsSynopsis: the synopsis of a command — sitepush --help, a usage
// error — lists every flag its --help describes.
func TestEveryFlagIsInItsCommandsSynopsis(t *testing.T) {
	for _, c := range commands() {
		_, help, _ := run(t, c.name, "--help")
		_, flags, _ := strings.Cut(help, "\nFlags:\n")
		for _, line := range strings.Split(flags, "\n") {
			name, ok := strings.CutPrefix(line, "  --")
			if !ok {
				continue
			}
			name, _, _ = strings.Cut(name, " ")
			if !strings.Contains(c.args+" ", "--"+name+" ") && !strings.Contains(c.args, "--"+name+"]") {
				t.Errorf("sitepush %s: the synopsis %q lacks --%s", c.name, c.args, name)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "sitepush dev (commit unknown, go1.") {
		t.Errorf("exit %d, %q", code, out)
	}
	for _, flag := range []string{"--version", "-version"} {
		if fcode, fout, ferr := run(t, flag); fcode != code || fout != out || ferr != "" {
			t.Errorf("sitepush %s: exit %d, stdout %q, stderr %q; want what sitepush version prints, %q", flag, fcode, fout, ferr, out)
		}
	}
}
