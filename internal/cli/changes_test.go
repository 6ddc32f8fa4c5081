package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// TestSummaryTellsContentChecks: the summary of a run says what its content checks found, on a
// line of its own after the run's; a run that checked nothing says nothing of them.
func TestSummaryTellsContentChecks(t *testing.T) {
	for _, tc := range []struct {
		changes *model.Changes
		want    string // the line; "" for none
	}{
		{&model.Changes{Checked: 200, Changed: 3, Same: 197, NotModified: 150}, "  content: checked 200 pages: 3 changed, 197 the same (150 not modified)\n"},
		{&model.Changes{Checked: 20, Same: 20}, "  content: checked 20 pages: 0 changed, 20 the same\n"},
		{&model.Changes{Checked: 1, First: 1, Failed: 2, Left: 1_500}, "  content: checked 1 page: 1 checked for the first time, 2 could not be read, 1,500 suspects left for the next run\n"},
		{&model.Changes{Sitemaps: map[string]string{"https://a.example/s.xml": "content: no lastmod"}}, "  content: checked 0 pages\n"},
		{nil, ""},
	} {
		rec := &model.Record{Site: "blog", Status: model.StatusOK, StartedAt: time.Unix(0, 0), FinishedAt: time.Unix(1, 0), Changes: tc.changes,
			Channels: map[string]*model.ChannelStats{"indexnow": {Due: 3, Submitted: 3}}}
		var b strings.Builder
		printRecord(&b, rec, model.Later{})
		lines := strings.SplitAfter(b.String(), "\n")
		got := ""
		if len(lines) > 1 && strings.HasPrefix(lines[1], "  content:") {
			got = lines[1]
		}
		if got != tc.want || strings.Count(b.String(), "content:") != strings.Count(tc.want, "content:") {
			t.Errorf("%+v: the summary is\n%s\nwant as its second line %q", tc.changes, b.String(), tc.want)
		}
	}
}

// TestCheckSaysHowChangesAreTold: check says of each sitemap file how a run tells what changed:
// a stamp is checked by content, distinct lastmods are trusted, and changes.detect overrides.
func TestCheckSaysHowChangesAreTold(t *testing.T) {
	for _, tc := range []struct {
		extra          string
		stamped, dated string
	}{
		{"", "content: 5 URLs share the lastmod 2026-11-29T08:00:00Z, a build's stamp", "lastmod: trusted, 5 distinct values"},
		{"    changes: {detect: content}\n", "content: changes.detect is content", "content: changes.detect is content"},
		{"    changes: {detect: lastmod}\n", "lastmod: changes.detect is lastmod, its lastmods decide", "lastmod: changes.detect is lastmod, its lastmods decide"},
	} {
		w := newTestWorld(t, tc.extra)
		var stamped, dated strings.Builder
		for i := range 5 {
			fmt.Fprintf(&stamped, "<url><loc>%s/p/%d</loc><lastmod>2026-11-29T08:00:00Z</lastmod></url>", w.site.URL, i)
			fmt.Fprintf(&dated, "<url><loc>%s/p/%d</loc><lastmod>2026-10-%02d</lastmod></url>", w.site.URL, 10+i, 1+i)
		}
		w.files["/stamped.xml"] = "<urlset>" + stamped.String() + "</urlset>"
		w.files["/dated.xml"] = "<urlset>" + dated.String() + "</urlset>"
		w.files["/sitemap.xml"] = fmt.Sprintf("<sitemapindex><sitemap><loc>%[1]s/stamped.xml</loc></sitemap><sitemap><loc>%[1]s/dated.xml</loc></sitemap></sitemapindex>", w.site.URL)
		code, out, _ := run(t, "check", "--config", w.config)
		for _, want := range []string{"✓ sitemap " + w.site.URL + "/stamped.xml: " + tc.stamped + "\n", "✓ sitemap " + w.site.URL + "/dated.xml: " + tc.dated + "\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("check of %q: missing %q in\n%s", tc.extra, want, out)
			}
		}
		if code != exitOK || strings.Contains(out, "sitemap "+w.site.URL+"/sitemap.xml: content") || strings.Contains(out, "sitemap "+w.site.URL+"/sitemap.xml: lastmod") {
			t.Errorf("check of %q: exit %d; want 0, and no verdict on the index\n%s", tc.extra, code, out)
		}
	}
}
