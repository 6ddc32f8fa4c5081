package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/version"
)

func TestTopLevelDefaults(t *testing.T) {
	c := mustParse(t, "", nil)
	if c.State != "sqlite:/etc/sitepush/sitepush.db" || c.Listen != "127.0.0.1:8080" || c.UserAgent != version.UserAgent() {
		t.Errorf("built-in top level: state %q, listen %q, userAgent %q", c.State, c.Listen, c.UserAgent)
	}
	if c.Webhook != nil || len(c.Sites) != 0 {
		t.Errorf("empty file: webhook %+v, %d sites; want none", c.Webhook, len(c.Sites))
	}
	if c.Serve.Concurrency != 4 {
		t.Errorf("empty file: serve.concurrency %d, want 4", c.Serve.Concurrency)
	}
	if c = mustParse(t, "serve: {concurrency: 8}\n", nil); c.Serve.Concurrency != 8 {
		t.Errorf("serve: {concurrency: 8} gave %d", c.Serve.Concurrency)
	}
	if !reflect.DeepEqual(c.Defaults, Builtin()) {
		t.Errorf("defaults of an empty file = %+v, want Builtin()", c.Defaults)
	}
	c = mustParse(t, "webhook:\n  url: https://h.example/x\n", nil)
	if c.Webhook == nil || c.Webhook.FailureRate != 0.10 {
		t.Errorf("webhook without failureRate: %+v, want failureRate 0.10", c.Webhook)
	}
	c = mustParse(t, "webhook:\n  url: https://h.example/x\n  failureRate: 0\n", nil)
	if c.Webhook.FailureRate != 0 {
		t.Errorf("webhook failureRate: 0 gave %v", c.Webhook.FailureRate)
	}
}

func TestInheritance(t *testing.T) {
	doc := `defaults:
  runBudget: 10m
  resubmitAfter: 48h
  sitemap: {timeout: 5s, retries: 1}
  indexnow:
    endpoints: [https://a.example/indexnow, https://b.example/indexnow]
    backoff: [3s]
  feed:
    out: feeds/all.xml
sites:
  - id: plain
    sitemaps: [https://plain.example/sitemap.xml]
  - id: custom
    sitemaps: [https://custom.example/sitemap.xml]
    resubmitAfter: 0
    sitemap: {retries: 2}
    indexnow:
      endpoints: [https://c.example/indexnow]
    feed:
`
	c := mustParse(t, doc, nil)
	plain, custom := c.Sites[0], c.Sites[1]
	tests := []struct {
		name      string
		got, want any
	}{
		{"file defaults override built-ins", plain.RunBudget.D(), 10 * time.Minute},
		{"Config.Defaults holds the file's defaults", c.Defaults.RunBudget.D(), 10 * time.Minute},
		{"built-ins stay where defaults are silent", plain.Bing.DailyQuota, 100},
		{"Bing tracks crawls unless told not to", plain.Bing.Track, true},
		{"Bing asks about 50 URLs a run", plain.Bing.TrackPerRun, 50},
		{"nested default", plain.Sitemap.Timeout.D(), 5 * time.Second},
		{"default list", plain.IndexNow.Endpoints, []string{"https://a.example/indexnow", "https://b.example/indexnow"}},
		{"default list replaces the built-in list", plain.IndexNow.Backoff, []Duration{Duration(3 * time.Second)}},
		{"site overrides one nested field", custom.Sitemap.Retries, 2},
		{"sibling from defaults kept", custom.Sitemap.Timeout.D(), 5 * time.Second},
		{"sibling from built-ins kept", custom.Sitemap.MaxDepth, 5},
		{"site list replaces the default list", custom.IndexNow.Endpoints, []string{"https://c.example/indexnow"}},
		{"zero overrides a non-zero default", custom.ResubmitAfter.D(), time.Duration(0)},
		{"site runBudget inherited", custom.RunBudget.D(), 10 * time.Minute},
		{"empty block keeps the defaults", custom.Feed.Out, "/etc/sitepush/feeds/all.xml"},
		{"built-in feed value", custom.Feed.MaxItems, 50},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestInheritedListsAreNotShared(t *testing.T) {
	sites := "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n  - id: b\n    sitemaps: [https://b.example/s.xml]\n"
	c := mustParse(t, sites, nil)
	c.Sites[0].IndexNow.Endpoints[0] = "changed"
	if c.Sites[1].IndexNow.Endpoints[0] == "changed" || c.Defaults.IndexNow.Endpoints[0] == "changed" ||
		Builtin().IndexNow.Endpoints[0] == "changed" {
		t.Error("sites share the backing array of a built-in list")
	}
	c = mustParse(t, "defaults:\n  include: [/a/**]\n"+sites, nil)
	c.Sites[0].Include[0] = "/changed"
	if c.Sites[1].Include[0] == "/changed" || c.Defaults.Include[0] == "/changed" {
		t.Error("sites share the backing array of a list from defaults")
	}
}

func TestEmptyValueKeepsInherited(t *testing.T) {
	builtin := Builtin()
	tests := []struct {
		name string
		doc  string
		got  func(*Config) any
		want any
	}{
		{"list in a site", siteDoc("indexnow:\n  backoff:"),
			func(c *Config) any { return c.Sites[0].IndexNow.Backoff }, builtin.IndexNow.Backoff},
		{"list in a site over defaults", "defaults:\n  include: [/a/**]\n" + siteDoc("include: ~"),
			func(c *Config) any { return c.Sites[0].Include }, []string{"/a/**"}},
		{"list in defaults", "defaults:\n  indexnow:\n    backoff:\n" + siteDoc(""),
			func(c *Config) any { return c.Sites[0].IndexNow.Backoff }, builtin.IndexNow.Backoff},
		{"list in Config.Defaults", "defaults:\n  indexnow:\n    endpoints: null\n",
			func(c *Config) any { return c.Defaults.IndexNow.Endpoints }, builtin.IndexNow.Endpoints},
		{"value", "defaults:\n  schedule: \"0 1 * * *\"\n" + siteDoc("schedule:"),
			func(c *Config) any { return c.Sites[0].Schedule }, "0 1 * * *"},
		{"number", siteDoc("bing:\n  dailyQuota: ~"), func(c *Config) any { return c.Sites[0].Bing.DailyQuota }, 100},
		{"mapping", "defaults:\n  sitemap: {retries: 1}\n" + siteDoc("sitemap:"),
			func(c *Config) any { return c.Sites[0].Sitemap.Retries }, 1},
		{"defaults", "defaults:\n" + siteDoc(""), func(c *Config) any { return c.Defaults }, builtin},
		{"top level", "state: ~\nwebhook:\n", func(c *Config) any { return c.State + fmt.Sprint(c.Webhook) },
			"sqlite:/etc/sitepush/sitepush.db<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParse(t, tt.doc, nil)
			if got := tt.got(c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAliasesAndMergeKeys(t *testing.T) {
	doc := `sites:
  - id: a
    sitemaps: [https://a.example/s.xml]
    bing: &bing {enabled: true, apiKey: k, dailyQuota: 7}
  - id: b
    sitemaps: [https://b.example/s.xml]
    bing: *bing
  - id: c
    sitemaps: [https://c.example/s.xml]
    bing:
      <<: *bing
      dailyQuota: 9
`
	c := mustParse(t, doc, nil)
	if b := c.Sites[1].Bing; b.DailyQuota != 7 || b.APIKey != "k" || !b.Enabled {
		t.Errorf("alias: %+v", b)
	}
	if b := c.Sites[2].Bing; b.DailyQuota != 9 || b.APIKey != "k" {
		t.Errorf("merge key: %+v, want quota 9 from the site and the key from the alias", b)
	}
	_, err := parse("sites:\n  - &s\n    id: a\n    bing: {x: *s}\n", nil)
	checkErr(t, err, "line 4: alias *s refers to a value that contains it")
	_, err = parse("defaults:\n  bing:\n    <<: [a]\n", nil)
	checkErr(t, err, "line 3: a merge key (<<) takes mappings, got a single value")
}

func TestAliasBomb(t *testing.T) {
	doc := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i <= 5; i++ {
		p := "*a" + string(rune('0'+i-1))
		doc += "a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(p+", ", 9) + p + "]\n"
	}
	_, err := parse(doc, nil)
	checkErr(t, err, "expand to more than 100000 YAML nodes")
}

// TestAFleetIsNoBomb: the bound is on what aliases expand to, not on what the file writes — a
// file of 30,000 sites and no alias loads (from about 25,000 sites on, it was refused as a bomb).
func TestAFleetIsNoBomb(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("sites:\n")
	for i := range 30_000 {
		fmt.Fprintf(&doc, "  - {id: s%05d, sitemaps: [https://s%05d.example/sitemap.xml]}\n", i, i)
	}
	c, err := parse(doc.String(), nil)
	if err != nil || len(c.Sites) != 30_000 {
		t.Fatalf("a file of 30,000 sites: %v", err)
	}
}
