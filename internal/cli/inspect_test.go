package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/server"
)

// TestInspect: a URL's story tells whether the sitemaps list it, what IndexNow last did with it
// and whether the next run sends it, and why; a URL the site never had is an error naming it.
func TestInspect(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(3)
	w.eng.Fail(enginetest.Fault{Status: 403, Message: "key not valid"})
	if code, _, errOut := run(t, "run", "--config", w.config); code == exitUsage {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	story := func(u string) (server.URLStory, string) {
		t.Helper()
		code, out, errOut := run(t, "inspect", "--config", w.config, "--site", "demo", u, "--json")
		var doc server.URLStory
		if code != exitOK || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("inspect %s: exit %d\n%s%s", u, code, out, errOut)
		}
		return doc, out
	}
	doc, raw := story(w.site.URL + "/p/1")
	in := doc.Channels["indexnow"]
	if doc.InSitemaps == nil || !*doc.InSitemaps || doc.FirstSeen.IsZero() || doc.Lastmod != nil ||
		in.LastOutcome == nil || *in.LastOutcome != "failed" || !in.Due || in.Why == nil || *in.Why != "failed" || in.LastDelivery != nil {
		t.Errorf("the story of a URL IndexNow refused:\n%s", raw)
	}
	for _, key := range []string{`"inSitemaps": true`, `"lastmod": null`, `"lastDelivery": null`, `"why": "failed"`} {
		if !strings.Contains(raw, key) {
			t.Errorf("inspect --json lacks %s:\n%s", key, raw)
		}
	}

	run(t, "run", "--config", w.config) // sent again, accepted
	w.publish(2)                        // /p/2 leaves the sitemap
	run(t, "run", "--config", w.config)
	doc, raw = story(w.site.URL + "/p/1")
	if in := doc.Channels["indexnow"]; *doc.InSitemaps != true || *in.LastOutcome != "ok" || in.Due || in.Why != nil || in.LastDelivery == nil {
		t.Errorf("the story of a URL delivered:\n%s", raw)
	}
	if doc, raw = story(w.site.URL + "/p/2"); doc.InSitemaps == nil || *doc.InSitemaps {
		t.Errorf("the story of a URL no sitemap lists now:\n%s", raw)
	}

	code, out, _ := run(t, "inspect", "--config", w.config, "--site", "demo", w.site.URL+"/p/1")
	if code != exitOK || !strings.Contains(out, "in the sitemaps: yes") || !strings.Contains(out, "indexnow: last attempt") || !strings.Contains(out, "; not due") {
		t.Errorf("inspect, for a person: exit %d\n%s", code, out)
	}
	code, _, errOut := run(t, "inspect", "--config", w.config, "--site", "demo", w.site.URL+"/never")
	if code != exitFailed || !strings.Contains(errOut, `site "demo" has no URL `+w.site.URL+"/never in its catalogue") {
		t.Errorf("inspect of a URL the site never had: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, "inspect", "--config", w.config, w.site.URL+"/p/1"); code != exitUsage || !strings.Contains(errOut, "needs --site") {
		t.Errorf("inspect without --site: exit %d: %s", code, errOut)
	}
}
