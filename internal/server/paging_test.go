package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// addSites stores n sites, fleet-0000 on, never run, as another instance sharing the state
// creates them through the API, and has the registry read them, as it does every 30 s (creating
// each through this server reads them all again each time: seconds for 500).
func (w *world) addSites(n int) {
	w.t.Helper()
	ctx := context.Background()
	for i := range n {
		body := fmt.Sprintf(`{"id": "fleet-%04d", "sitemaps": ["%s/sitemap.xml"], "schedule": "0 0 1 1 *", "indexnow": {"enabled": true, "key": "%s"}}`, i, w.site.URL, siteKey)
		if err := w.store.CreateSite(ctx, fmt.Sprintf("fleet-%04d", i), []byte(body), time.Now()); err != nil {
			w.t.Fatal(err)
		}
	}
	if err := w.api.sites.Load(ctx); err != nil {
		w.t.Fatal(err)
	}
	w.api.Invalidate()
}

// sitesPage is a page of /api/sites or /status, its sites' ids and the cursor to the next.
type sitesPage struct {
	ids  []string
	next string
	keys []string // the answer's keys
	link string   // its Link header
}

// sitesPageOf asks path (with its query) and returns the page.
func (w *world) sitesPageOf(path string) sitesPage {
	w.t.Helper()
	req, _ := http.NewRequest("GET", w.http.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&doc); resp.StatusCode != http.StatusOK || err != nil {
		w.t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	var p sitesPage
	for k := range doc {
		p.keys = append(p.keys, k)
	}
	slices.Sort(p.keys)
	json.Unmarshal(doc["nextCursor"], &p.next)
	var items []struct {
		Site   struct{ ID string }
		SiteID string
	}
	json.Unmarshal(doc["sites"], &items)
	for _, it := range items {
		p.ids = append(p.ids, it.Site.ID+it.SiteID)
	}
	p.link = resp.Header.Get("Link")
	return p
}

// TestSiteListsComeInPages: /api/sites and /status take limit and a cursor, whose pages walk every
// site once, in the order of the answer without limit — which, up to 500 sites, is what it was
// before pages: every site, and no cursor.
func TestSiteListsComeInPages(t *testing.T) {
	w := newWorld(t)
	w.addSites(120)
	for _, path := range []string{"/api/sites", "/status"} {
		whole := w.sitesPageOf(path)
		if len(whole.ids) != 121 || whole.ids[0] != "filesite" || whole.ids[1] != "fleet-0000" || whole.ids[120] != "fleet-0119" {
			t.Fatalf("GET %s: %d sites from %v, want the file's filesite then the 120 of the API by id", path, len(whole.ids), whole.ids[:min(3, len(whole.ids))])
		}
		if !slices.Equal(whole.keys, []string{"sites"}) || whole.link != "" {
			t.Errorf("GET %s without limit, 121 sites: keys %v, Link %q; want only \"sites\", as before pages", path, whole.keys, whole.link)
		}
		var walked []string
		sizes := []int{}
		for p, cursor := 0, ""; p < 10; p++ {
			q := path + "?limit=50"
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			page := w.sitesPageOf(q)
			walked = append(walked, page.ids...)
			sizes = append(sizes, len(page.ids))
			if (page.next == "") != (page.link == "") || page.next != "" && !strings.Contains(page.link, "cursor="+page.next) {
				t.Errorf("GET %s: nextCursor %q and Link %q do not agree", q, page.next, page.link)
			}
			if cursor = page.next; cursor == "" {
				break
			}
		}
		if !slices.Equal(walked, whole.ids) || !slices.Equal(sizes, []int{50, 50, 21}) {
			t.Errorf("GET %s?limit=50 walked pages of %v, %d sites; want 50, 50, 21: every site once, in order", path, sizes, len(walked))
		}
	}
}

// TestSiteListCursors: a cursor goes on after its site, also when that site was deleted since;
// a cursor this server did not give, or a limit out of 1–500, is refused with what to do.
func TestSiteListCursors(t *testing.T) {
	w := newWorld(t)
	w.addSites(10)
	first := w.sitesPageOf("/api/sites?limit=4")
	if want := []string{"filesite", "fleet-0000", "fleet-0001", "fleet-0002"}; !slices.Equal(first.ids, want) {
		t.Fatalf("the first page of 4: %v, want %v", first.ids, want)
	}
	if code, out := w.call("DELETE", "/api/sites/fleet-0002", ""); code != http.StatusNoContent {
		t.Fatalf("deleting fleet-0002: %d %s", code, out)
	}
	for _, path := range []string{"/api/sites", "/status"} {
		next := w.sitesPageOf(path + "?limit=4&cursor=" + first.next)
		if want := []string{"fleet-0003", "fleet-0004", "fleet-0005", "fleet-0006"}; !slices.Equal(next.ids, want) {
			t.Errorf("GET %s after a page ending with fleet-0002, deleted since: %v, want %v", path, next.ids, want)
		}
		for q, want := range map[string]string{
			"?cursor=bm90LWEtY3Vyc29y":                     "is not one this server gave",
			"?cursor=%25%25":                               "is not one this server gave",
			"?cursor=" + cursorOf(pageKey{"file", "gone"}): "which the configuration file no longer declares",
			"?limit=0":   "limit must be a whole number from 1 to 500",
			"?limit=501": "limit must be a whole number from 1 to 500",
		} {
			if code, out := w.call("GET", path+q, ""); code != http.StatusBadRequest || !strings.Contains(out, want) {
				t.Errorf("GET %s%s: %d %s; want 400 saying %q", path, q, code, out, want)
			}
		}
	}
}

// TestSiteListsBeyond500: without limit, more than 500 sites are answered 500 at a time, with
// the cursor to the rest, rather than all at once.
func TestSiteListsBeyond500(t *testing.T) {
	w := newWorld(t)
	w.addSites(500)
	for _, path := range []string{"/api/sites", "/status"} {
		page := w.sitesPageOf(path)
		if len(page.ids) != 500 || page.next == "" {
			t.Fatalf("GET %s, 501 sites: %d sites, nextCursor %q; want the first 500 and a cursor", path, len(page.ids), page.next)
		}
		rest := w.sitesPageOf(path + "?cursor=" + page.next)
		if !slices.Equal(rest.ids, []string{"fleet-0499"}) || rest.next != "" {
			t.Errorf("GET %s's second page: %v, nextCursor %q; want fleet-0499 alone, the last", path, rest.ids, rest.next)
		}
	}
}
