package config

import (
	"strings"
	"testing"
)

func TestNothingOn(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"nothing on", siteDoc(""), `site "example.com": no channel is on, so a run would read its sitemaps and send nothing: turn one on, like indexnow: {enabled: true`},
		{"credentials, channel off", siteDoc("bing: {apiKey: k}"), "no channel is on"},
		{"feed on", siteDoc("feed: {enabled: true}"), ""},
		{"on through the defaults", "defaults:\n  indexnow: {enabled: true, key: abcdefgh}\n" + siteDoc(""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustParse(t, tc.doc, nil)
			checkErr(t, c.NothingOn(), tc.want)
		})
	}
}

func TestWarningsOfChannelsOff(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"bing key, bing off", siteDoc("feed: {enabled: true}\nbing: {apiKey: k}"), []string{"bing.apiKey is set but bing.enabled is not"}},
		{"indexnow key, indexnow off", siteDoc("feed: {enabled: true}\nindexnow: {key: abcdefgh}"), []string{"indexnow.key is set but indexnow.enabled is not"}},
		{"feed file, feed off", siteDoc("indexnow: {enabled: true, key: abcdefgh}\nfeed: {out: public/feed.xml}"), []string{"feed.enabled is not"}},
		{"turned off on purpose", siteDoc("feed: {enabled: true}\nbing: {enabled: false, apiKey: k}"), nil},
		{"a key from the defaults, off on purpose", "defaults:\n  bing: {enabled: true, apiKey: k}\n" + siteDoc("bing: {enabled: false}\nfeed: {enabled: true}"), nil},
		{"all on", siteDoc("indexnow: {enabled: true, key: abcdefgh}\nbing: {enabled: true, apiKey: k}"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustParse(t, tc.doc, nil).Sites[0].Warnings()
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d like %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("warning %q, want %q", got[i], tc.want[i])
				}
			}
		})
	}
}
