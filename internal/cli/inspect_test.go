package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

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
	if code, out, errOut := run(t, "inspect", "--config", w.config, w.site.URL+"/p/1"); code != exitOK || !strings.Contains(out, "in the sitemaps: yes") {
		t.Errorf("inspect without --site, of the only site: exit %d: %s%s", code, out, errOut)
	}
}

// TestInspectTellsWhatContentChecksFound: inspect says, in one line, where a page of a sitemap
// without lastmods stands in the content checks: one checked the same as IndexNow was sent, one
// sent beyond the run's checks, a suspect for the next run's — not due on IndexNow.
func TestInspectTellsWhatContentChecksFound(t *testing.T) {
	w := newTestWorld(t, "    changes: {checksPerRun: 1}\n")
	w.publish(2)
	if code, out, errOut := run(t, "run", "--config", w.config); code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	suspects := map[bool]bool{} // whether a page was a suspect, whether one was not
	for _, u := range []string{w.site.URL + "/p/0", w.site.URL + "/p/1"} {
		code, raw, _ := run(t, "inspect", "--config", w.config, "--site", "demo", u, "--json")
		var doc server.URLStory
		if code != exitOK || json.Unmarshal([]byte(raw), &doc) != nil || doc.Content == nil {
			t.Fatalf("inspect %s --json: exit %d, no content:\n%s", u, code, raw)
		}
		in := doc.Channels["indexnow"]
		want := "  content:         new to the checks, not checked yet (a suspect: checked first next run)\n"
		if !doc.Content.Suspect {
			if doc.Content.CheckedAt == nil || in.LastDelivery == nil {
				t.Fatalf("a page checked and delivered, with no time of its check or its delivery:\n%s", raw)
			}
			want = "  content:         checked (its place in line from " + doc.Content.CheckedAt.Format(time.RFC3339) +
				"): content the same as sent to indexnow on " + in.LastDelivery.Format(time.RFC3339) + "\n"
		}
		_, out, _ := run(t, "inspect", "--config", w.config, "--site", "demo", u)
		if !strings.Contains(out, want) || !strings.Contains(out, "; not due\n") {
			t.Errorf("inspect %s:\n%s\nwant the line %q, and not due on indexnow", u, out, want)
		}
		suspects[doc.Content.Suspect] = true
	}
	if len(suspects) != 2 {
		t.Errorf("of 2 new pages with one check a run, both or neither were suspects after it; want one of each")
	}
}

// TestABacklogIsNeverCalledDelivered: a first run whose backlog leaves every URL out sends none,
// and every surface says so in the same words: the summary counts them older than the backlog,
// not sent (not "already delivered"), and a URL's story says "never sent", with no delivery
// time and no attempt.
func TestABacklogIsNeverCalledDelivered(t *testing.T) {
	w := newTestWorld(t, "    backlog: none\n")
	w.publish(3)
	code, out, errOut := run(t, "run", "--config", w.config)
	if code != exitOK || strings.Contains(out, "already delivered") || !strings.Contains(out, "indexnow: 0 due, 0 submitted, 0 failed, 0 already known, 3 older than the first run's backlog, not sent") {
		t.Fatalf("the first run with backlog none: exit %d\n%s%s", code, out, errOut)
	}
	code, raw, errOut := run(t, "inspect", "--config", w.config, "--site", "demo", w.site.URL+"/p/1", "--json")
	var doc server.URLStory
	if code != exitOK || json.Unmarshal([]byte(raw), &doc) != nil {
		t.Fatalf("inspect --json: exit %d\n%s%s", code, raw, errOut)
	}
	if in := doc.Channels["indexnow"]; in.LastOutcome == nil || *in.LastOutcome != "backlog" || in.LastDelivery != nil || in.LastAttempt != nil ||
		in.NotSent != "never sent: older than the first run's backlog" || in.TakenAt == nil || in.Due {
		t.Errorf("the story of a URL the backlog held back:\n%s", raw)
	}
	_, out, _ = run(t, "inspect", "--config", w.config, "--site", "demo", w.site.URL+"/p/1")
	if !strings.Contains(out, "indexnow: never sent: older than the first run's backlog (taken as known ") || strings.Contains(out, "delivered") {
		t.Errorf("inspect, for a person, of a URL the backlog held back:\n%s", out)
	}
}
