package config

import (
	"strings"
	"testing"
)

// parseFor parses doc as a file in /etc/sitepush for a command that reads what needs says.
func parseFor(doc string, vars map[string]string, needs Needs) (*Config, error) {
	return ParseFor([]byte(doc), "/etc/sitepush", env(vars), needs)
}

func TestTokensAreReadByServeAlone(t *testing.T) {
	doc := "listen: :80\nadminToken: ${ADMIN}\nmetricsToken: \"m-${METRICS}\"\n" + siteDoc("indexnow: {enabled: true, key: abcd1234}")
	c, err := parseFor(doc, nil, Needs{})
	if err != nil {
		t.Fatalf("a command that does not read the tokens: %v", err)
	}
	if c.AdminToken != "" || c.MetricsToken != "" || len(c.Unread) != 2 {
		t.Fatalf("adminToken %q, metricsToken %q, unread %+v", c.AdminToken, c.MetricsToken, c.Unread)
	}
	if got := c.Unread[0].String(); got != "adminToken (line 2): environment variable ADMIN is not set; "+
		"sitepush serve and the Cloudflare Worker need it (run, check, submit and feed do not)" {
		t.Errorf("unread adminToken: %s", got)
	}
	if u := c.Unread[1]; u.Var != "METRICS" || u.Line != 3 || u.Setting != "metricsToken" || !strings.Contains(u.NeededBy, "sitepush serve needs it") {
		t.Errorf("unread metricsToken: %+v", u)
	}
	_, err = parseFor(doc, nil, Everything)
	checkErr(t, err, "line 2: environment variable ADMIN is not set; export it or remove ${ADMIN}")
	checkErr(t, err, "line 3: environment variable METRICS is not set")
	if _, err := Parse([]byte(doc), "/", env(nil)); err == nil {
		t.Error("Parse reads every setting, and took an unset adminToken")
	}
	// A malformed reference is a mistake whoever reads the setting.
	_, err = parseFor("adminToken: ${A-B}\n", nil, Needs{})
	checkErr(t, err, "adminToken: ${A-B} is not a valid variable reference")
}

func TestAChannelLeftOutIsNotRead(t *testing.T) {
	doc := "defaults:\n  bing:\n    apiKey: ${DEFAULT_BING}\n" + siteDoc(`indexnow: {enabled: true, key: abcd1234}
bing:
  enabled: true
  dailyQuota: ${QUOTA}
  endpoint: https://${BING_HOST}/json
feed:
  maxItems: ${ITEMS}`)
	c, err := parseFor(doc, nil, Needs{Channel: "indexnow"})
	if err != nil {
		t.Fatalf("run --channel indexnow: %v", err)
	}
	s := c.Sites[0]
	if !s.Bing.Enabled || s.Bing.APIKey != "" || s.Bing.DailyQuota != 100 || s.Bing.Endpoint != Builtin().Bing.Endpoint || s.Feed.MaxItems != 50 {
		t.Errorf("the settings left unset are not given, so inherited: %+v %+v", s.Bing, s.Feed)
	}
	var got []string
	for _, u := range c.Unread {
		got = append(got, u.Scope+" "+u.Setting+" "+u.Var)
	}
	want := `defaults bing.apiKey DEFAULT_BING|site "example.com" bing.dailyQuota QUOTA|site "example.com" bing.endpoint BING_HOST|site "example.com" feed.maxItems ITEMS`
	if strings.Join(got, "|") != want {
		t.Errorf("unread:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	for _, needs := range []Needs{{}, {Channel: "all"}, {Channel: "bing"}} {
		_, err := parseFor(doc, nil, needs)
		checkErr(t, err, "line 3: environment variable DEFAULT_BING is not set")
		checkErr(t, err, "line 10: environment variable QUOTA is not set")
	}
	_, err = parseFor(doc, nil, Needs{Channel: "feed"})
	checkErr(t, err, "line 13: environment variable ITEMS is not set")
}

// TestAnUnreadKeyIsNotRequired: bing.apiKey is required when bing is on, but not of a command
// that leaves bing out when its variable is unset; a key that is simply missing still is.
func TestAnUnreadKeyIsNotRequired(t *testing.T) {
	doc := siteDoc("indexnow: {enabled: true, key: abcd1234}\nbing:\n  enabled: true\n  apiKey: ${BING}")
	if _, err := parseFor(doc, nil, Needs{Channel: "indexnow"}); err != nil {
		t.Errorf("an unset bing.apiKey, bing left out: %v", err)
	}
	_, err := parseFor(siteDoc("indexnow: {enabled: true, key: abcd1234}\nbing: {enabled: true}"), nil, Needs{Channel: "indexnow"})
	checkErr(t, err, `site "example.com": bing.apiKey is required when bing.enabled is true`)

	// Inherited from the defaults, by the file's sites and by those created through the API.
	doc = "defaults:\n  bing:\n    apiKey: ${BING}\n" + siteDoc("indexnow: {enabled: true, key: abcd1234}\nbing: {enabled: true}")
	c, err := parseFor(doc, nil, Needs{Channel: "indexnow"})
	if err != nil {
		t.Fatalf("an unset bing.apiKey in the defaults, bing left out: %v", err)
	}
	if _, err := c.ParseSite([]byte(`{"id": "api", "sitemaps": ["https://api.example/s.xml"], "bing": {"enabled": true}}`)); err != nil {
		t.Errorf("an API site inheriting the unset key: %v", err)
	}
	_, err = c.ParseSite([]byte(`{"id": "api", "sitemaps": ["https://api.example/s.xml"], "bing": {"enabled": true, "apiKey": ""}}`))
	checkErr(t, err, `site "api": bing.apiKey is required when bing.enabled is true`)
}

// TestAnAliasIsReadWhereItIsUsed: a value an alias repeats is read or not at each place it is
// used, and a problem with it is told once.
func TestAnAliasIsReadWhereItIsUsed(t *testing.T) {
	doc := "adminToken: &token ${TOKEN}\nuserAgent: *token\n"
	_, err := parseFor(doc, nil, Needs{})
	checkErr(t, err, "line 1: environment variable TOKEN is not set")
	if n := strings.Count(err.Error(), "TOKEN is not set"); n != 1 {
		t.Errorf("told %d times: %v", n, err)
	}
	c, err := parseFor("adminToken: &token ${TOKEN}\nmetricsToken: *token\n", nil, Needs{})
	if err != nil || len(c.Unread) != 2 {
		t.Errorf("both tokens unread: %v, %+v", err, c)
	}
}
