package server

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
)

var (
	cardRe = regexp.MustCompile(`<h2 id="site-([^"]+)">`)
	nextRe = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)
)

// overviewOf gets a page of the overview and returns the ids of the sites it shows, in order,
// the link to the next page ("" on the last) and the page.
func (b *browser) overviewOf(path string) ([]string, string, string) {
	b.t.Helper()
	st, page := b.get(path)
	if st != http.StatusOK {
		b.t.Fatalf("GET %s: %d", path, st)
	}
	var ids []string
	for _, m := range cardRe.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	next := ""
	if m := nextRe.FindStringSubmatch(page); m != nil {
		next = html.UnescapeString(m[1])
	}
	return ids, next, page
}

// failedRun makes filesite's IndexNow fail, in a run from the dashboard.
func (b *browser) failedRun() {
	b.w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	b.runOnce("run", url.Values{"channel": {"indexnow"}})
}

// TestOverviewPages: of 121 sites, the overview shows 50 a page, the failing one first, with the
// count of each health across all sites, and links that reach every other site once.
func TestOverviewPages(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	b.failedRun()
	w.addSites(120)
	ids, next, page := b.overviewOf("/")
	if len(ids) != 50 || ids[0] != "filesite" || ids[1] != "fleet-0000" {
		t.Fatalf("GET / shows %d sites from %v; want 50, the failing filesite first, then the never run by id", len(ids), ids[:min(2, len(ids))])
	}
	for _, want := range []string{"121 sites", `<a href="/?health=failing"><span class="st st-failing">✖ failing</span> <strong>1</strong></a>`,
		`<a href="/?health=never&#43;run"><span class="st muted">○ never run</span> <strong>120</strong></a>`, `<span class="muted">ok 0</span>`,
		"Showing 1–50 of 121 sites.", "page 1 of 3", `<form method="get" action="/" role="search">`} {
		if !strings.Contains(page, want) {
			t.Errorf("GET / lacks %q", want)
		}
	}
	seen := slices.Clone(ids)
	for pages := 1; next != "" && pages < 5; pages++ {
		ids, next, _ = b.overviewOf(next)
		seen = append(seen, ids...)
	}
	slices.Sort(seen)
	if len(seen) != 121 || len(slices.Compact(seen)) != 121 {
		t.Errorf("the next links showed %d sites, want each of the 121 once", len(seen))
	}
	if ids, _, page := b.overviewOf("/?page=99"); len(ids) != 21 || !strings.Contains(page, "page 3 of 3") {
		t.Errorf("/?page=99 shows %d sites; want the last page, 21", len(ids))
	}
}

// TestOverviewSearch: the overview finds sites by a part of their id or host, in any case, and
// by health; its links to other pages keep what it was asked.
func TestOverviewSearch(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	b.failedRun()
	w.addSites(120)
	body := `{"id": "store-1", "sitemaps": ["https://Shop.Example/sitemap.xml"], "schedule": "0 0 1 1 *", "indexnow": {"enabled": true, "key": "` + siteKey + `"}}`
	if code, out := w.call("POST", "/api/sites", body); code != http.StatusCreated {
		t.Fatalf("creating store-1: %d %s", code, out)
	}
	for path, want := range map[string][]string{
		"/?q=FLEET-0077":              {"fleet-0077"},
		"/?q=shop.example":            {"store-1"},
		"/?health=failing":            {"filesite"},
		"/?q=fleet&health=ok":         nil,
		"/?q=nothing-like-it":         nil,
		"/?q=FLEET-0077&health=bogus": {"fleet-0077"}, // not a health: it keeps every site
		"/?q=007&health=never+run":    {"fleet-0007", "fleet-0070", "fleet-0071", "fleet-0072", "fleet-0073", "fleet-0074", "fleet-0075", "fleet-0076", "fleet-0077", "fleet-0078", "fleet-0079"},
	} {
		if ids, _, _ := b.overviewOf(path); !slices.Equal(ids, want) {
			t.Errorf("GET %s shows %v, want %v", path, ids, want)
		}
	}
	ids, next, page := b.overviewOf("/?q=Fleet-00")
	if len(ids) != 50 || next != "/?page=2&q=Fleet-00" || !strings.Contains(page, "Showing 1–50 of 100 sites (id or host containing “Fleet-00”).") {
		t.Errorf("/?q=Fleet-00: %d sites, next %q; want 50 of the 100 and a next page that keeps the search", len(ids), next)
	}
	if ids, next, _ = b.overviewOf(next); len(ids) != 50 || ids[49] != "fleet-0099" || next != "" {
		t.Errorf("the second page of Fleet-00: %d sites ending %v, next %q; want the last 50", len(ids), ids[len(ids)-1:], next)
	}
	_, _, page = b.overviewOf("/?health=failing")
	if !strings.Contains(page, `<a href="/" aria-current="page"><span class="st st-failing">✖ failing</span>`) ||
		!strings.Contains(page, `<input type="hidden" name="health" value="failing">`) {
		t.Error("/?health=failing does not mark its count as the one shown, linking back to every site, or its search does not keep it")
	}
}
