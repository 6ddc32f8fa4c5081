package worker

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestADamagedSiteValueIsMadeAgain: a site's `site:{id}` value (when it last ran, its run ids)
// that does not decode is made again from the site's history of runs, and the site runs.
func TestADamagedSiteValueIsMadeAgain(t *testing.T) {
	w := newWorld(t)
	w.publish(pages(5, "2026-01-01")...)
	w.tick(t0)
	w.kv.Put(t.Context(), "site:demo", []byte("{not json"), 0, "")
	w.publish(append(pages(5, "2026-01-01"), "/p/new 2026-02-01")...)
	for i := 1; i <= 3; i++ {
		w.tick(t0.Add(time.Duration(i) * time.Hour))
	}
	sent := slices.Contains(w.engine.Accepted(), w.site.URL+"/p/new")
	told := strings.Contains(w.log.String(), `npx wrangler kv key delete --binding STATE \"site:demo\"`) ||
		strings.Contains(w.log.String(), `npx wrangler kv key delete --binding STATE "site:demo"`)
	if !sent && !told {
		t.Errorf("with site:demo damaged, three ticks neither sent the new page nor named the key to delete:\n%s", w.log.String())
	}
}

// TestADamagedValueKeepsStatusUp: one site's damaged value — its `site:{id}`, its `lease:{id}`,
// its statistics of the day — takes neither GET /status down for every site nor the site's runs.
func TestADamagedValueKeepsStatusUp(t *testing.T) {
	for _, key := range []string{"site:demo", "lease:demo", "stats:demo:2026-03-01"} {
		t.Run(key, func(t *testing.T) {
			w := newWorld(t)
			w.files["/other.xml"] = `<urlset><url><loc>` + w.site.URL + `/o</loc></url></urlset>`
			w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"sites": [`, fmt.Sprintf(`"sites": [
				{"id": "other", "sitemaps": ["%s/other.xml"], "indexnow": {"enabled": true, "key": "%s"}},`, w.site.URL, testKey), 1)
			w.publish(pages(5, "2026-01-01")...)
			w.tick(t0)
			w.kv.Put(t.Context(), key, []byte("{not json"), 0, "")
			code, body := w.call("GET", "/status", testToken)
			if code != 200 || !strings.Contains(body, `"siteId":"other"`) {
				t.Errorf("GET /status with %s damaged: %d %s; want the status of site other at least", key, code, body)
			}
		})
	}
}

// nested is a world whose site's root index lists 60 sub-indexes of one sitemap of 5 pages each,
// IndexNow alone enabled; it returns how many URLs the site has.
func nested(t *testing.T) (*world, int) {
	w := newWorld(t)
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"bing": {"enabled": true`, `"bing": {"enabled": false`, 1)
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"feed": {"enabled": true`, `"feed": {"enabled": false`, 1)
	var root strings.Builder
	root.WriteString("<sitemapindex>")
	n := 0
	for c := range 60 {
		fmt.Fprintf(&root, "<sitemap><loc>%s/sub-%d.xml</loc></sitemap>", w.site.URL, c)
		w.files[fmt.Sprintf("/sub-%d.xml", c)] = fmt.Sprintf("<sitemapindex><sitemap><loc>%s/child-%d.xml</loc></sitemap></sitemapindex>", w.site.URL, c)
		var child strings.Builder
		child.WriteString("<urlset>")
		for i := range 5 {
			fmt.Fprintf(&child, "<url><loc>%s/p/%d-%d</loc></url>", w.site.URL, c, i)
			n++
		}
		child.WriteString("</urlset>")
		w.files[fmt.Sprintf("/child-%d.xml", c)] = child.String()
	}
	root.WriteString("</sitemapindex>")
	w.files["/sitemap.xml"] = root.String()
	return w, n
}

// TestNestedIndexesOnTheWorker: within a Free-plan budget (45 subrequests), the Worker reads a
// site whose root index lists 60 sub-indexes of one sitemap each over a few ticks, each sub-index
// read whole with its sitemap remembered, and sends every URL.
func TestNestedIndexesOnTheWorker(t *testing.T) {
	w, want := nested(t)
	w.vars[SubrequestsVar] = "45"
	for tick := range 12 {
		w.tick(t0.Add(time.Duration(tick) * time.Hour))
	}
	if got := len(w.engine.Accepted()); got != want {
		t.Errorf("after 12 ticks (hourly), %d of %d URLs sent", got, want)
	}
}

// TestADamagedLeaseIsTakenAsFree: a site's `lease:{id}` value that does not decode (written by
// hand, by another tool) is taken as free, and the site runs.
func TestADamagedLeaseIsTakenAsFree(t *testing.T) {
	w := newWorld(t)
	w.publish(pages(5, "2026-01-01")...)
	w.tick(t0)
	w.kv.Put(t.Context(), "lease:demo", []byte("{not json"), 0, "")
	w.publish(append(pages(5, "2026-01-01"), "/p/new 2026-02-01")...)
	for i := 1; i <= 3; i++ {
		w.tick(t0.Add(time.Duration(i) * time.Hour))
	}
	sent := slices.Contains(w.engine.Accepted(), w.site.URL+"/p/new")
	told := strings.Contains(w.log.String(), `lease:demo`) && strings.Contains(w.log.String(), `npx wrangler kv key delete`)
	if !sent && !told {
		t.Errorf("with lease:demo damaged, three ticks neither sent the new page nor named the key to delete:\n%s", w.log.String())
	}
}

// TestBingsQuotaGoesToTheNewestOverSeveralTicks: over a read of several ticks, Bing's daily quota
// goes to the newest pages of the site (bing.priority newest), not to those of the sitemaps read
// first: Bing gets its URLs from the tick that reaches the end of the read. Here an index lists
// 30 sitemaps oldest first, and 12 subrequests a tick read it in 4 ticks (Bing's preflight is
// off: its fetches would take the few subrequests left, and the order is the point here).
func TestBingsQuotaGoesToTheNewestOverSeveralTicks(t *testing.T) {
	w := newWorld(t)
	w.vars[SubrequestsVar] = "12"
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"feed": {"enabled": true`, `"feed": {"enabled": false`, 1)
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"dailyQuota": 40,`, `"dailyQuota": 40, "preflight": false,`, 1)
	var index strings.Builder
	index.WriteString("<sitemapindex>")
	var newest []string
	for c := range 30 {
		var child strings.Builder
		child.WriteString("<urlset>")
		for i := range 10 {
			u := fmt.Sprintf("%s/p/%d-%d", w.site.URL, c, i)
			if c >= 26 {
				newest = append(newest, u)
			}
			fmt.Fprintf(&child, "<url><loc>%s</loc><lastmod>2026-01-%02d</lastmod></url>", u, 1+c)
		}
		child.WriteString("</urlset>")
		w.files[fmt.Sprintf("/child-%d.xml", c)] = child.String()
		fmt.Fprintf(&index, "<sitemap><loc>%s/child-%d.xml</loc></sitemap>", w.site.URL, c)
	}
	index.WriteString("</sitemapindex>")
	w.files["/sitemap.xml"] = index.String()
	for tick := range 8 {
		w.tick(t0.Add(time.Duration(tick) * time.Minute))
	}
	got := w.bing.Accepted()
	slices.Sort(got)
	slices.Sort(newest)
	if !slices.Equal(got, newest) {
		t.Errorf("Bing's 40 of the day went to %d URLs, %v…; want the 40 newest, those of child-26 to child-29", len(got), got[:min(3, len(got))])
	}
}
