package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sites"
	"github.com/sitepush/sitepush/internal/store"
)

// writeConfig writes a configuration beside w's and returns its path.
func (w *testWorld) writeConfig(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(filepath.Dir(w.config), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestASiteWithNothingOn(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(3)
	cfg := w.writeConfig(t, "quiet.yaml", "state: sqlite:quiet.db\nsites:\n  - id: quiet\n    sitemaps: ["+w.site.URL+"/sitemap.xml]\n"+
		"    indexnow: {key: "+testKey+", endpoints: ["+w.engine.URL+"/indexnow]}\n")
	for _, cmd := range []string{"run", "check"} {
		code, _, errOut := run(t, cmd, "--config", cfg)
		if code != exitUsage || !strings.Contains(errOut, `site "quiet": no channel is on`) || !strings.Contains(errOut, "enabled: true") {
			t.Errorf("%s: exit %d, %q; want 2 saying how to turn a channel on", cmd, code, errOut)
		}
	}
	if len(w.eng.Submissions()) != 0 {
		t.Error("something was submitted")
	}
}

func TestCredentialsOfAChannelThatIsOff(t *testing.T) {
	w := newTestWorld(t, "    bing: {apiKey: some-bing-key}\n")
	w.publish(3)
	code, out, _ := run(t, "check", "--config", w.config)
	if code != exitOK || !strings.Contains(out, "  ! bing.apiKey is set but bing.enabled is not: nothing goes to Bing; add bing.enabled: true") ||
		!strings.Contains(out, "  ✓ channels on: indexnow; off: bing, feed") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "run", "--config", w.config)
	if code != exitOK || !strings.Contains(out, "  note: bing.apiKey is set but bing.enabled is not") {
		t.Errorf("run: exit %d\n%s", code, out)
	}
	off := w.writeConfig(t, "off.yaml", strings.Replace(readFile(t, w.config), "{apiKey: some-bing-key}", "{enabled: false, apiKey: some-bing-key}", 1))
	if _, out, _ := run(t, "check", "--config", off); strings.Contains(out, "bing.apiKey is set") {
		t.Errorf("a channel turned off on purpose is no warning:\n%s", out)
	}
}

func TestCheckTheState(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(3)
	cfg := w.writeConfig(t, "nostate.yaml", strings.Replace(readFile(t, w.config), "sqlite:state.db", "sqlite:no/such/dir/s.db", 1))
	code, out, errOut := run(t, "check", "--config", cfg)
	if code != exitFailed || !strings.Contains(out, "✗ state sqlite:") || !strings.Contains(out, "mkdir -p") ||
		!strings.Contains(errOut, "1 check failed") {
		t.Errorf("check with the state in a missing directory: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run(t, "check", "--config", cfg, "--json")
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitFailed || rep.OK || rep.Failed != 1 {
		t.Fatalf("check --json: exit %d, %v: %+v\n%s", code, err, rep, out)
	}
	levels := map[string]string{}
	for _, c := range rep.Checks {
		levels[c.Check] = c.Level
	}
	if levels["state"] != levelFail || levels["sitemap"] != levelPass || levels["indexnow"] != levelPass || levels["configuration"] != levelPass {
		t.Errorf("check --json levels: %v", levels)
	}
	code, out, _ = run(t, "check", "--config", w.writeConfig(t, "broken.yaml", "sites: ["), "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitUsage || rep.OK {
		t.Errorf("check --json of a broken configuration: exit %d, %v\n%s", code, err, out)
	}
}

func TestCheckFeedOutAndWebhook(t *testing.T) {
	alerts := &hook{}
	receiver := httptest.NewServer(alerts)
	defer receiver.Close()
	w := newTestWorld(t, "    feed: {enabled: true, out: missing/feed.xml}\n")
	w.publish(3)
	os.WriteFile(w.config, []byte(readFile(t, w.config)+"webhook: {url: "+receiver.URL+"}\n"), 0o644)
	code, out, _ := run(t, "check", "--config", w.config, "--webhook")
	if code != exitFailed || !strings.Contains(out, "✗ feed.out "+filepath.Join(filepath.Dir(w.config), "missing", "feed.xml")) ||
		!strings.Contains(out, "✓ webhook: the test alert was accepted") {
		t.Errorf("check --webhook with feed.out in a missing directory: exit %d\n%s", code, out)
	}
	if got := alerts.alerts(); len(got) != 1 || !strings.Contains(got[0]["text"].(string), "a test alert") {
		t.Errorf("the webhook got %q", got)
	}
}

// TestTheSitesOfTheAPI: the commands see the sites created through the API, whatever the case
// of their ids.
func TestTheSitesOfTheAPI(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(4)
	ctx := context.Background()
	cfg, err := config.Load(w.config, os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, cfg.State)
	if err != nil {
		t.Fatal(err)
	}
	reg := sites.New(cfg, st, nil)
	if _, err := reg.Create(ctx, []byte(`{"id": "FromAPI", "sitemaps": ["`+w.site.URL+`/sitemap.xml"], "indexnow": {"enabled": true, "key": "`+testKey+`"}}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, errOut := run(t, "run", "--config", w.config, "--site", "fromapi", "--dry-run")
	if code != exitOK || !strings.Contains(out, "site FromAPI (dry run, nothing submitted): 4 URLs") {
		t.Errorf("run --site fromapi: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run(t, "run", "--config", w.config, "--site", "DEMO", "--dry-run")
	if code != exitOK || !strings.Contains(out, "site demo (dry run") {
		t.Errorf("run --site DEMO: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "check", "--config", w.config)
	if code != exitOK || !strings.Contains(out, "site FromAPI:") || !strings.Contains(out, "✓ configuration "+w.config+": valid, 1 site in the file, 1 created through the API\n") {
		t.Errorf("check sees the API's sites, and counts them apart: exit %d\n%s", code, out)
	}
	// Two sites: submit needs --site to choose, and says which there are.
	code, _, errOut = run(t, "submit", "--config", w.config, w.site.URL+"/p/1")
	if want := "sitepush submit needs --site ID to choose the site whose channels and key the URLs go through: there are 2 sites (demo, FromAPI)"; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("submit without --site, two sites: exit %d, %q; want %q", code, errOut, want)
	}
}

// TestAChannelThatIsOff: --channel names a channel a site has off: a run of it there would send
// nothing, and say it did well. A site chosen is refused (exit 2) with the fix; of all the
// sites, those that have it off are left out, and none left is refused.
func TestAChannelThatIsOff(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(3)
	for _, args := range [][]string{{"run"}, {"run", "--site", "demo"}, {"submit", w.site.URL + "/p/1"}} {
		code, out, errOut := run(t, append(args, "--config", w.config, "--channel", "bing")...)
		want := "site demo has bing off (bing.enabled is not true), so --channel bing would send nothing there: set bing.enabled: true for it (docs/configuration.md), or choose a channel it has on: indexnow"
		if code != exitUsage || !strings.Contains(errOut, want) || len(w.eng.Submissions()) != 0 {
			t.Errorf("%s --channel bing: exit %d, %q; want 2 and %q\n%s", strings.Join(args, " "), code, errOut, want, out)
		}
	}
	writeFile(t, w.config, readFile(t, w.config)+"  - id: other\n    sitemaps: ["+w.site.URL+"/sitemap.xml]\n    indexnow: {enabled: true, key: "+testKey+"}\n"+
		"    bing: {enabled: true, apiKey: k, endpoint: http://127.0.0.1:9/unused}\n")
	code, out, errOut := run(t, "run", "--config", w.config, "--channel", "bing", "--dry-run")
	if code == exitUsage || !strings.Contains(errOut, "note: site demo has bing off (bing.enabled is not true): left out of --channel bing") ||
		strings.Contains(out, "site demo") || !strings.Contains(out, "site other") {
		t.Errorf("two sites, one with bing on: exit %d\n%s%s", code, out, errOut)
	}
	writeFile(t, w.config, strings.Replace(readFile(t, w.config), "bing: {enabled: true,", "bing: {enabled: false,", 1))
	code, _, errOut = run(t, "run", "--config", w.config, "--channel", "bing")
	if want := "no site has bing on (bing.enabled is not true for demo, other), so --channel bing would send nothing"; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("two sites, none with bing on: exit %d, %q; want %q", code, errOut, want)
	}
}

// TestTheDryRunTellsBingsQuota: a dry run shows what Bing would get now — within today's quota,
// newest first — and, once the quota is spent, nothing.
func TestTheDryRunTellsBingsQuota(t *testing.T) {
	b := &enginetest.Bing{Keys: map[string]int{"bing-key-123": 1000}}
	bsrv := httptest.NewServer(b)
	defer bsrv.Close()
	w := newTestWorld(t, "    bing: {enabled: true, apiKey: bing-key-123, dailyQuota: 40, batchSize: 100, endpoint: "+bsrv.URL+"/webmaster/api.svc/json}\n")
	now := time.Now().UTC()
	var sm strings.Builder
	sm.WriteString("<urlset>")
	for i := range 125 {
		fmt.Fprintf(&sm, "<url><loc>%s/p/%d</loc><lastmod>%s</lastmod></url>", w.site.URL, i, now.Add(-time.Duration(i)*time.Hour).Format(time.RFC3339))
	}
	sm.WriteString("</urlset>")
	w.files["/sitemap.xml"] = sm.String()
	dry := func() model.ChannelStats {
		t.Helper()
		code, out, errOut := run(t, "run", "--config", w.config, "--channel", "bing", "--dry-run", "--json")
		var rec model.Record
		if err := json.Unmarshal([]byte(out), &rec); err != nil || code != exitOK {
			t.Fatalf("dry run: exit %d, %v\n%s%s", code, err, out, errOut)
		}
		return *rec.Channels["bing"]
	}
	if c := dry(); c.Due != 125 || c.Held != 85 || len(c.Sample) != 20 || c.Sample[0] != w.site.URL+"/p/0" || c.Sample[19] != w.site.URL+"/p/19" {
		t.Errorf("dry run before: due %d, held %d, sample %v", c.Due, c.Held, c.Sample)
	}
	_, out, _ := run(t, "run", "--config", w.config, "--channel", "bing", "--dry-run")
	if !strings.Contains(out, "bing: 40 would be submitted, 85 held back by the quota, 0 already known") {
		t.Errorf("dry run summary:\n%s", out)
	}
	if code, out, errOut := run(t, "run", "--config", w.config, "--channel", "bing"); code != exitOK || !strings.Contains(out, "40 submitted") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	if c := dry(); c.Due != 85 || c.Held != 85 || len(c.Sample) != 0 {
		t.Errorf("dry run once the quota is spent: due %d, held %d, sample %v", c.Due, c.Held, c.Sample)
	}
}

// TestTheDryRunOfARefusedBingKey: when Bing refuses the key, a dry run says that nothing would
// go to Bing, as the run would send nothing, not that every due URL would be submitted.
func TestTheDryRunOfARefusedBingKey(t *testing.T) {
	b := &enginetest.Bing{Keys: map[string]int{"bing-key-123": 1000}}
	bsrv := httptest.NewServer(b)
	defer bsrv.Close()
	w := newTestWorld(t, "    bing: {enabled: true, apiKey: not-the-key, endpoint: "+bsrv.URL+"/webmaster/api.svc/json}\n")
	w.publish(30)
	code, out, errOut := run(t, "run", "--config", w.config, "--channel", "bing", "--dry-run", "--json")
	var rec model.Record
	if err := json.Unmarshal([]byte(out), &rec); err != nil || code != exitOK {
		t.Fatalf("dry run: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if c := rec.Channels["bing"]; c.Due != 30 || c.Due-c.Held-c.Left != 0 || len(c.Sample) != 0 || rec.Status != model.StatusOK {
		t.Errorf("dry run with a refused key: %s, %+v; want nothing that would be sent", rec.Status, c)
	}
	_, out, _ = run(t, "run", "--config", w.config, "--channel", "bing", "--dry-run")
	if !strings.Contains(out, "bing: 0 would be submitted, 30 left for the next run, 0 already known") || strings.Contains(out, "more") {
		t.Errorf("dry run summary with a refused key:\n%s", out)
	}
}

func TestSubmit(t *testing.T) {
	w := newTestWorld(t, "    backlog: none\n")
	w.publish(5)
	if code, _, errOut := run(t, "run", "--config", w.config); code != exitOK || len(w.eng.Accepted()) != 0 {
		t.Fatalf("first run with backlog none: exit %d, %d sent: %s", code, len(w.eng.Accepted()), errOut)
	}
	code, out, errOut := run(t, "submit", "--config", w.config, "--site", "DEMO", w.site.URL+"/p/1", w.site.URL+"/landing/new", "https://elsewhere.example.org/x", "/relative")
	if got := w.eng.Accepted(); code != exitFailed || !slices.Equal(sortedCopy(got), []string{w.site.URL + "/landing/new", w.site.URL + "/p/1"}) {
		t.Fatalf("submit: exit %d, sent %v\n%s%s", code, got, out, errOut)
	}
	for _, want := range []string{"refused: https://elsewhere.example.org/x: on host elsewhere.example.org, not the site's", "refused: /relative: not an absolute http(s) URL",
		"2 URLs of 4 refused"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("submit's stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "site demo (ok): 2 URLs chosen") {
		t.Errorf("submit's summary:\n%s", out)
	}
	run(t, "submit", "--config", w.config, "--site", "demo", w.site.URL+"/p/1")
	if n := len(w.eng.Accepted()); n != 2 {
		t.Errorf("a delivered, unchanged URL was sent again without --force (%d sent in all)", n)
	}
	if code, _, errOut := run(t, "submit", "--config", w.config, "--site", "demo", "--force", w.site.URL+"/p/1"); code != exitOK || len(w.eng.Accepted()) != 3 {
		t.Errorf("--force: exit %d, %d sent in all: %s", code, len(w.eng.Accepted()), errOut)
	}
	// One site: --site chooses nothing, and is not needed.
	if code, _, errOut := run(t, "submit", "--config", w.config, "--force", w.site.URL+"/p/2"); code != exitOK || len(w.eng.Accepted()) != 4 {
		t.Errorf("submit without --site, one site: exit %d, %d sent in all: %s", code, len(w.eng.Accepted()), errOut)
	}
	if code, _, errOut := run(t, "submit", "--config", w.config, "--site", "demo", "https://elsewhere.example.org/x"); code != exitUsage || !strings.Contains(errOut, "none of the 1 URL can be submitted") {
		t.Errorf("only foreign URLs: exit %d, %s", code, errOut)
	}
	code, out, _ = run(t, "run", "--config", w.config, "--json")
	var rec model.Record
	if json.Unmarshal([]byte(out), &rec); code != exitOK || rec.Channels["indexnow"].Due != 0 {
		t.Errorf("a run after submits: exit %d, %+v", code, rec.Channels["indexnow"])
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func TestChosenURLsFromStdin(t *testing.T) {
	urls, err := chosenURLs([]string{"https://a.example/1", "-"}, strings.NewReader("# a comment\n\n https://a.example/2 \nhttps://a.example/3\n"))
	if err != nil || !slices.Equal(urls, []string{"https://a.example/1", "https://a.example/2", "https://a.example/3"}) {
		t.Errorf("%v, %v", urls, err)
	}
	if _, err := chosenURLs([]string{"-"}, strings.NewReader(strings.Repeat("https://a.example/x\n", maxSubmit+1))); err == nil {
		t.Error("more than maxSubmit URLs were taken")
	}
	if _, err := chosenURLs([]string{"-"}, strings.NewReader("\n# nothing but a comment\n")); err == nil || !strings.Contains(err.Error(), "no URL on stdin") {
		t.Errorf("an empty stdin: %v", err)
	}
}

func TestRetryFailed(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(4)
	w.eng.Fail(enginetest.Fault{Status: 403})
	run(t, "run", "--config", w.config)
	w.publish(6)
	code, out, errOut := run(t, "run", "--config", w.config, "--retry-failed", "--json")
	var rec model.Record
	json.Unmarshal([]byte(out), &rec)
	if c := rec.Channels["indexnow"]; code != exitOK || c.Submitted != 4 || c.Due != 4 || c.Skipped != 0 || len(w.eng.Accepted()) != 4 {
		t.Errorf("--retry-failed: exit %d, %+v, %d accepted: %s", code, c, len(w.eng.Accepted()), errOut)
	}
	// The 2 new URLs were neither due nor delivered: a plain run sends them.
	if code, out, _ := run(t, "run", "--config", w.config); code != exitOK || !strings.Contains(out, "indexnow: 2 due, 2 submitted, 0 failed, 4 already known") {
		t.Errorf("the run after: exit %d\n%s", code, out)
	}
}
