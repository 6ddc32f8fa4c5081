package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/scheduler"
)

// TestFixNamesTheSite: the fix of a sitemap that cannot be read gives the command with the
// site's own id, ready to copy, on the overview and the site's page.
func TestFixNamesTheSite(t *testing.T) {
	w := newWorld(t)
	body := `{"id": "shop", "sitemaps": ["` + w.site.URL + `/missing.xml"], "schedule": "0 0 1 1 *", "indexnow": {"enabled": true, "key": "` + siteKey + `"}}`
	if code, out := w.call("POST", "/api/sites", body); code != 201 {
		t.Fatalf("creating shop: %d %s", code, out)
	}
	if code, out := w.call("POST", "/trigger?site=shop", ""); code != 202 {
		t.Fatalf("trigger: %d %s", code, out)
	}
	w.waitFinished("shop")
	b := w.signIn()
	for _, path := range []string{"/sites/shop", "/?q=shop"} {
		_, page := b.get(path)
		if !strings.Contains(page, "(sitepush check --site shop)") || strings.Contains(page, "--site ID") {
			t.Errorf("%s: the fix does not name the site: %.600s", path, text(page[strings.Index(page, "<main"):]))
		}
	}
}

// TestNoButtonsThatCannotHelp: Retry failed is offered while URLs are failing, and neither it nor
// Resubmit once the last run read none of the site's sitemaps: Run now, after the fix, is what
// helps then. A site with no URL failing is offered no Retry failed.
func TestNoButtonsThatCannotHelp(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	const retry, resubmit, run = `action="/sites/filesite/retry"`, `action="/sites/filesite/resubmit"`, `action="/sites/filesite/run"`
	forms := func(page string) [3]bool {
		return [3]bool{strings.Contains(page, run), strings.Contains(page, retry), strings.Contains(page, resubmit)}
	}
	b.runOnce("run", url.Values{})
	if _, page := b.get("/sites/filesite"); forms(page) != [3]bool{true, false, true} {
		t.Errorf("no URL failing: run, retry, resubmit offered: %v; want Run now and Resubmit", forms(page))
	}
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	w.files["/sitemap.xml"] = strings.Replace(w.files["/sitemap.xml"], "</urlset>", "<url><loc>"+w.site.URL+"/blog/late</loc></url></urlset>", 1)
	b.runOnce("run", url.Values{"channel": {"indexnow"}})
	if _, page := b.get("/sites/filesite"); forms(page) != [3]bool{true, true, true} {
		t.Errorf("a URL failing: run, retry, resubmit offered: %v; want all three", forms(page))
	}
	delete(w.files, "/sitemap.xml")
	b.runOnce("run", url.Values{})
	_, page := b.get("/sites/filesite")
	if forms(page) != [3]bool{true, false, false} {
		t.Errorf("the last run read no sitemap: run, retry, resubmit offered: %v; want Run now alone", forms(page))
	}
	if !strings.Contains(text(page), "No Retry failed or Resubmit: the last run read none of the site's sitemaps") {
		t.Errorf("the site's page does not say why Retry failed and Resubmit are not offered")
	}
}

// TestRunBannerGoesWhenTheRunEnds: "The run started" shows on the run's page while the run goes,
// and "being run now" on the site's, and neither once the run has ended, though the pages reload
// with the same link.
func TestRunBannerGoesWhenTheRunEnds(t *testing.T) {
	w := newWorld(t)
	runs := scheduler.NewRuns(runner.New(w.store), func(*config.Site, string) []channel.Channel { return []channel.Channel{stuck{}} },
		nil, slog.New(slog.NewTextHandler(io.Discard, nil)), 1)
	w.api.runs = runs
	b := w.signIn()
	_, page := b.get("/sites/filesite")
	st, body, loc := b.post("/sites/filesite/run", url.Values{"csrf": {csrf(t, page)}})
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
		t.Fatalf("POST run: %d to %q: %s", st, loc, body)
	}
	const started, busy = "The run started", "The site is being run now"
	if _, page := b.get(loc); !strings.Contains(page, started) {
		t.Errorf("%s, the run going: no %q", loc, started)
	}
	retried := strings.Replace(loc, "did=run", "did=retry", 1)
	if _, page := b.get(retried); !strings.Contains(page, "A run that sends the failed URLs again started") {
		t.Errorf("%s, the run going: it does not say the failed URLs go again", retried)
	}
	if _, page := b.get("/sites/filesite?did=busy"); !strings.Contains(page, busy) {
		t.Errorf("the site's page, its run going: no %q", busy)
	}
	runs.Shutdown(5 * time.Second)
	if got, err := w.store.Runs(context.Background(), "filesite", 1); err != nil || len(got) != 1 || got[0].FinishedAt.IsZero() {
		t.Fatalf("the run did not end: %v %+v", err, got)
	}
	if _, page := b.get(loc); strings.Contains(page, started) {
		t.Errorf("%s, the run ended: still %q", loc, started)
	}
	if _, page := b.get("/sites/filesite?did=busy"); strings.Contains(page, busy) {
		t.Errorf("the site's page, the run ended: still %q", busy)
	}
}

// TestMonthIsPerChannel: the overview's 30 days tell each channel's URLs apart — 25 pages sent to
// IndexNow and Bing are 25 pages on each, not "50 accepted" of a 25-page site.
func TestMonthIsPerChannel(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	b.runOnce("run", url.Values{"channel": {"indexnow"}})
	b.runOnce("run", url.Values{"channel": {"bing"}})
	_, page := b.get("/")
	want := "30 days: indexnow 0 accepted, 25 failed; bing 25 accepted"
	if got := text(page[strings.Index(page, "<main"):]); !strings.Contains(got, want) {
		t.Errorf("the overview lacks %q: %.1500s", want, got)
	}
	if !strings.Contains(page, "over the channels: indexnow 0 accepted, 25 failed; bing 25 accepted") {
		t.Error("the sparkline's label does not tell the channels apart")
	}
}
