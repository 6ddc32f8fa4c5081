package cli

import (
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/config"
)

// TestChooseTheSite: without --site, inspect takes the site on its URL's host (the www. form
// when no site has the host itself) and feed the only site with a feed; the only site there is
// needs no match; more than one, or none of several, is an error that names the candidates and
// asks for --site.
func TestChooseTheSite(t *testing.T) {
	site := func(id, base string, feed bool) *config.Site {
		s := &config.Site{ID: id, BaseURL: base}
		s.Feed.Enabled = feed
		return s
	}
	blog := site("blog", "https://blog.example.com", true)
	shop := site("shop", "https://shop.example.com", false)
	apex := site("apex", "https://example.com", false)
	www := site("www", "https://www.example.com", true)
	local := site("local", "http://127.0.0.1:8080", false)
	twin := site("twin", "https://blog.example.com", false)
	for _, c := range []struct {
		name   string
		choose siteChooser
		all    []*config.Site
		want   string // the site chosen, or words of the error
	}{
		{"the host", siteOfURL("inspect", "https://shop.example.com/p/1"), []*config.Site{blog, shop}, "shop"},
		{"the host in capitals", siteOfURL("inspect", "https://SHOP.example.com/p/1"), []*config.Site{blog, shop}, "shop"},
		{"the host and port", siteOfURL("inspect", "http://127.0.0.1:8080/p"), []*config.Site{blog, local}, "local"},
		{"the host before its www. form", siteOfURL("inspect", "https://www.example.com/"), []*config.Site{apex, www}, "www"},
		{"the site of the www. form", siteOfURL("inspect", "https://www.blog.example.com/p"), []*config.Site{blog, shop}, "blog"},
		{"the www. site of a bare host", siteOfURL("inspect", "https://example.com/p"), []*config.Site{blog, www}, "www"},
		{"the only site", siteOfURL("inspect", "https://elsewhere.example/p"), []*config.Site{blog}, "blog"},
		{"two sites of the host", siteOfURL("inspect", "https://blog.example.com/p"), []*config.Site{blog, shop, twin},
			"sitepush inspect needs --site ID: 2 sites have the host blog.example.com (blog, twin); pass --site with one of them"},
		{"no site of the host", siteOfURL("inspect", "https://elsewhere.example/p"), []*config.Site{blog, shop},
			"sitepush inspect needs --site ID: no site has the host elsewhere.example; the sites are blog (blog.example.com), shop (shop.example.com)"},
		{"not a whole URL", siteOfURL("inspect", "/p/1"), []*config.Site{blog, shop},
			"sitepush inspect needs --site ID, or a whole URL (https://host/path) to find the site by its host; the sites are blog, shop"},
		{"the only feed", siteWithFeed("feed"), []*config.Site{shop, blog, local}, "blog"},
		{"the only site, its feed off", siteWithFeed("feed"), []*config.Site{shop}, "shop"},
		{"two feeds", siteWithFeed("feed"), []*config.Site{blog, shop, www},
			"sitepush feed needs --site ID: 2 sites have a feed (blog, www); pass --site with one of them"},
		{"no feed", siteWithFeed("feed"), []*config.Site{shop, local},
			"sitepush feed needs --site ID: no site has its feed on (feed.enabled: true); the sites are shop, local"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.choose(c.all)
			switch {
			case err != nil && (!strings.Contains(err.Error(), c.want) || exitCode(err, &strings.Builder{}) != exitUsage):
				t.Errorf("error %v; want %q, exit 2", err, c.want)
			case err == nil && got.ID != c.want:
				t.Errorf("chose %s, want %q", got.ID, c.want)
			}
		})
	}
}

// TestInspectAndFeedFindTheSite: of two sites, inspect of a URL finds the site on its host and
// feed the one with a feed, without --site; a second feed makes feed ask which.
func TestInspectAndFeedFindTheSite(t *testing.T) {
	w := newTestWorld(t, "    feed: {enabled: true, fetchTitles: false}\n")
	w.publish(3)
	other := "  - id: other\n    sitemaps: [http://127.0.0.9:9/sitemap.xml]\n    indexnow: {enabled: true, key: " + testKey + "}\n"
	writeFile(t, w.config, readFile(t, w.config)+other)
	if code, out, errOut := run(t, "run", "--config", w.config, "--site", "demo"); code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	_, story, _ := run(t, "inspect", "--config", w.config, "--site", "demo", w.site.URL+"/p/1")
	if code, out, errOut := run(t, "inspect", "--config", w.config, w.site.URL+"/p/1"); code != exitOK || out != story || !strings.Contains(out, "indexnow: last attempt") {
		t.Errorf("inspect without --site: exit %d\n%s%s", code, out, errOut)
	}
	_, want, _ := run(t, "feed", "--config", w.config, "--site", "demo")
	if code, out, errOut := run(t, "feed", "--config", w.config); code != exitOK || out != want || !strings.Contains(out, "<rss") {
		t.Errorf("feed without --site: exit %d\n%s%s", code, out, errOut)
	}
	writeFile(t, w.config, strings.Replace(readFile(t, w.config), other, strings.Replace(other, "}\n", "}\n    feed: {enabled: true}\n", 1), 1))
	if code, out, errOut := run(t, "feed", "--config", w.config); code != exitUsage ||
		!strings.Contains(errOut, "sitepush feed needs --site ID: 2 sites have a feed (demo, other); pass --site with one of them") {
		t.Errorf("feed without --site, two feeds: exit %d\n%s%s", code, out, errOut)
	}
}
