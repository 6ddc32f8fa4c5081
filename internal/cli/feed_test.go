package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	if code, out, errOut := run(t, "run", "--config", w.config); code != exitOK || !strings.Contains(out, "feed: 5 due, 5 added, 0 failed, 0 already known, 7 older than the first run's backlog, not sent") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	written := readFile(t, filepath.Join(dir, "feed.xml"))
	code, out, errOut := run(t, "feed", "--config", w.config, "--site", "demo")
	if code != exitOK || out != written || strings.Count(out, "<item>") != 5 {
		t.Fatalf("sitepush feed: exit %d, %q\nprints\n%s\nfeed.out holds\n%s", code, errOut, out, written)
	}
	if code, alone, errOut := run(t, "feed", "--config", w.config); code != exitOK || alone != out {
		t.Errorf("sitepush feed without --site, of the only site: exit %d, %q", code, errOut)
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

// TestSubmitKeepsTheFeedsItems checks that the feed lists new pages once, whoever pushes them:
// `sitepush submit`, with or without --force, of a page that is an item or of a page the feed
// knows without one leaves the items as they are; a page never seen becomes an item, once.
func TestSubmitKeepsTheFeedsItems(t *testing.T) {
	w := newTestWorld(t, "    feed: {enabled: true, fetchTitles: false, baselineItems: 3}\n")
	var b strings.Builder
	b.WriteString("<urlset>")
	for i := range 6 {
		fmt.Fprintf(&b, "<url><loc>%s/p/%d</loc><lastmod>2026-05-%02d</lastmod></url>", w.site.URL, i, 10-i)
	}
	w.files["/sitemap.xml"] = b.String() + "</urlset>"
	feed := func() string {
		t.Helper()
		code, out, errOut := run(t, "feed", "--config", w.config, "--site", "demo")
		if code != exitOK {
			t.Fatalf("sitepush feed: exit %d, %s", code, errOut)
		}
		return regexp.MustCompile(`<lastBuildDate>[^<]*</lastBuildDate>`).ReplaceAllString(out, "")
	}
	if code, _, errOut := run(t, "submit", "--config", w.config, "--site", "demo", w.site.URL+"/p/5"); code != exitOK || strings.Contains(feed(), "<item>") {
		t.Fatalf("a submit before the feed's first run: exit %d, %s; want no item: the first run takes the newest pages", code, errOut)
	}
	run(t, "run", "--config", w.config)
	before := feed()
	if strings.Count(before, "<item>") != 3 || strings.Contains(before, "/p/5<") {
		t.Fatalf("the first run: want the 3 newest pages as items:\n%s", before)
	}
	for _, u := range []string{"/p/0", "/p/5"} { // an item; a page known without one
		for _, force := range [][]string{nil, {"--force"}} {
			args := append([]string{"submit", "--config", w.config, "--site", "demo"}, force...)
			code, out, errOut := run(t, append(args, w.site.URL+u)...)
			if after := feed(); code != exitOK || after != before {
				t.Errorf("submit %v %s: exit %d, %s%s; the feed changed:\n%s", force, u, code, out, errOut, after)
			}
		}
	}
	run(t, "submit", "--config", w.config, "--site", "demo", w.site.URL+"/landing/new")
	w.files["/sitemap.xml"] = strings.Replace(w.files["/sitemap.xml"], "</urlset>", "<url><loc>"+w.site.URL+"/landing/new</loc></url></urlset>", 1)
	run(t, "run", "--config", w.config)
	if after := feed(); strings.Count(after, "<item>") != 4 || strings.Count(after, "/landing/new</link>") != 1 {
		t.Errorf("a page never seen, submitted, then listed: want it an item once:\n%s", after)
	}
}
