package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFeedCommand(t *testing.T) {
	w := newTestWorld(t, "    feed: {enabled: true, fetchTitles: false, baselineItems: 5, out: feed.xml}\n")
	dir := filepath.Dir(w.config)
	if code, _, errOut := run(t, "feed", "--config", w.config, "--site", "demo"); code != exitOK {
		t.Errorf("the feed of a site never run: exit %d, %q", code, errOut)
	}
	w.publish(12)
	if code, out, errOut := run(t, "run", "--config", w.config); code != exitOK || !strings.Contains(out, "feed: 5 due, 5 added, 0 failed, 7 known") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	written := readFile(t, filepath.Join(dir, "feed.xml"))
	code, out, errOut := run(t, "feed", "--config", w.config, "--site", "demo")
	if code != exitOK || out != written || strings.Count(out, "<item>") != 5 {
		t.Fatalf("sitepush feed: exit %d, %q\nprints\n%s\nfeed.out holds\n%s", code, errOut, out, written)
	}
	copyPath := filepath.Join(dir, "copy.xml")
	if code, out, errOut := run(t, "feed", "--config", w.config, "--site", "demo", "--out", copyPath); code != exitOK || out != "" || readFile(t, copyPath) != written {
		t.Errorf("--out: exit %d, %q %q", code, out, errOut)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, exitUsage, "sitepush feed needs --site ID"},
		{[]string{"--site", "nope"}, exitUsage, `no site "nope" in the configuration`},
		{[]string{"--site", "demo", "--out", filepath.Join(dir, "missing", "f.xml")}, exitFailed, "exists and is writable"},
	} {
		code, _, errOut := run(t, append([]string{"feed", "--config", w.config}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q", tc.args, code, errOut)
		}
	}

	off := newTestWorld(t, "")
	if code, _, errOut := run(t, "feed", "--config", off.config, "--site", "demo"); code != exitFailed ||
		!strings.Contains(errOut, `site "demo" has no feed: set feed.enabled: true, then run it`) {
		t.Errorf("a site without a feed: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(off.config), "state.db")); err == nil {
		t.Error("sitepush feed created a state")
	}
}
