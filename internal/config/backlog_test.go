package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestBacklogPerChannel(t *testing.T) {
	tests := []struct {
		name, doc      string
		indexnow, bing Backlog
	}{
		{"the default", siteDoc(""), "all", "all"},
		{"the site's sets both", siteDoc("backlog: none"), "none", "none"},
		{"a channel's own", siteDoc("indexnow: {backlog: 168h}"), "168h", "all"},
		{"a channel's own over the site's", siteDoc("backlog: none\nbing: {backlog: all}"), "none", "all"},
		{"the defaults' channel", "defaults: {indexnow: {backlog: 168h}}\n" + siteDoc(""), "168h", "all"},
		{"the site's over the defaults' channel", "defaults: {indexnow: {backlog: 168h}, backlog: all}\n" + siteDoc("backlog: none"), "none", "none"},
		{"the defaults' channel over the defaults' site", "defaults: {indexnow: {backlog: 168h}, backlog: none}\n" + siteDoc(""), "168h", "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.doc, nil).Sites[0]
			if got := s.BacklogOf("indexnow"); got != tt.indexnow {
				t.Errorf("indexnow: %q, want %q", got, tt.indexnow)
			}
			if got := s.BacklogOf("bing"); got != tt.bing {
				t.Errorf("bing: %q, want %q", got, tt.bing)
			}
			if s.BacklogOf("feed") != BacklogAll || !s.BacklogAll("feed") {
				t.Errorf("feed: %q", s.BacklogOf("feed"))
			}
		})
	}
	s := mustParse(t, siteDoc("backlog: none\nindexnow: {backlog: 168h}"), nil).Sites[0]
	now := time.Date(2026, 5, 8, 0, 0, 0, 0, time.UTC)
	if !s.FirstRunSends("indexnow", now.Add(-6*24*time.Hour), now) || s.FirstRunSends("indexnow", now.Add(-8*24*time.Hour), now) ||
		s.FirstRunSends("bing", now, now) || !s.FirstRunSends("feed", time.Time{}, now) || s.BacklogAll("indexnow") {
		t.Error("FirstRunSends does not follow each channel's backlog")
	}
}

func TestBacklogRules(t *testing.T) {
	_, err := parse(siteDoc("indexnow: {backlog: 7d}"), nil)
	checkErr(t, err, `site "example.com": indexnow.backlog must be all, none or a duration like 720h (the lastmods a first run sends), got "7d"`)
	_, err = parse("defaults: {bing: {backlog: -1h}}\n"+siteDoc(""), nil)
	checkErr(t, err, `defaults: bing.backlog must be all, none or a duration like 720h`)
	_, err = parse(siteDoc("feed:\n  backlog: none"), nil)
	checkErr(t, err, `line 5: site "example.com": feed.backlog is not a setting: the feed's first run is its own, and lists the newest feed.baselineItems pages`)
	c := mustParse(t, "", nil)
	_, err = c.ParseSite([]byte(`{"id": "api", "sitemaps": ["https://api.example/s.xml"], "feed": {"backlog": "none"}}`))
	checkErr(t, err, `feed.backlog is not a setting`)
}

// TestBacklogThroughTheAPI: a site created through the API takes the keys of the file, and
// shows its channel's backlog only when it has its own.
func TestBacklogThroughTheAPI(t *testing.T) {
	c := mustParse(t, "defaults: {backlog: none}\n", nil)
	s, err := c.ParseSite([]byte(`{"id": "api", "sitemaps": ["https://api.example/s.xml"], "indexnow": {"backlog": "168h"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.BacklogOf("indexnow") != "168h" || s.BacklogOf("bing") != "none" {
		t.Errorf("indexnow %q, bing %q", s.BacklogOf("indexnow"), s.BacklogOf("bing"))
	}
	out, _ := json.Marshal(s.Masked())
	if !strings.Contains(string(out), `"backlog":"168h"`) || strings.Count(string(out), `"backlog"`) != 2 {
		t.Errorf("the site as the API shows it: %s", out)
	}
}
