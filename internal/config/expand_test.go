package config

import (
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		vars    map[string]string
		want    func(*Config) any
		wantVal any
		wantErr string
	}{
		{name: "set", doc: "adminToken: ${TOKEN}\n", vars: map[string]string{"TOKEN": "s3cret"},
			want: func(c *Config) any { return c.AdminToken }, wantVal: "s3cret"},
		{name: "inside text", doc: "adminToken: a-${TOKEN}-b\n", vars: map[string]string{"TOKEN": "x"},
			want: func(c *Config) any { return c.AdminToken }, wantVal: "a-x-b"},
		{name: "set but empty", doc: "adminToken: ${TOKEN}\n", vars: map[string]string{"TOKEN": ""},
			want: func(c *Config) any { return c.AdminToken }, wantVal: ""},
		{name: "escaped", doc: "adminToken: $${TOKEN}\n",
			want: func(c *Config) any { return c.AdminToken }, wantVal: "${TOKEN}"},
		{name: "lone dollar", doc: "adminToken: a$b$$c\n",
			want: func(c *Config) any { return c.AdminToken }, wantVal: "a$b$$c"},
		{name: "injection stays a string", doc: "adminToken: ${TOKEN}\n", vars: map[string]string{"TOKEN": "a: b\nx: y"},
			want: func(c *Config) any { return c.AdminToken }, wantVal: "a: b\nx: y"},
		{name: "injection into a quoted value", doc: "adminToken: \"${TOKEN}\"\n", vars: map[string]string{"TOKEN": "#c\"\n- d"},
			want: func(c *Config) any { return c.AdminToken }, wantVal: "#c\"\n- d"},
		{name: "comments are not expanded", doc: "# ${NOT_SET}\nadminToken: x # ${NOT_SET}\n",
			want: func(c *Config) any { return c.AdminToken }, wantVal: "x"},
		{name: "int field from env", doc: siteDoc("bing:\n  dailyQuota: ${QUOTA}"), vars: map[string]string{"QUOTA": "250"},
			want: func(c *Config) any { return c.Sites[0].Bing.DailyQuota }, wantVal: 250},
		{name: "bool field from env", doc: siteDoc("feed:\n  fetchTitles: ${FT}"), vars: map[string]string{"FT": "false"},
			want: func(c *Config) any { return c.Sites[0].Feed.FetchTitles }, wantVal: false},
		{name: "quoted number stays text", doc: "adminToken: \"${N}\"\n", vars: map[string]string{"N": "12"},
			want: func(c *Config) any { return c.AdminToken }, wantVal: "12"},
		{name: "empty overrides an inherited value",
			doc: "defaults: {feed: {out: x.xml}}\n" + siteDoc("feed: {out: \"${OUT}\"}"), vars: map[string]string{"OUT": ""},
			want: func(c *Config) any { return c.Sites[0].Feed.Out }, wantVal: ""},
		{name: "unquoted empty overrides an inherited value",
			doc: "defaults:\n  feed:\n    out: x.xml\n" + siteDoc("feed:\n  out: ${OUT}"), vars: map[string]string{"OUT": ""},
			want: func(c *Config) any { return c.Sites[0].Feed.Out }, wantVal: ""},
		{name: "unset", doc: "listen: :80\n\nadminToken: ${EXAMPLE_BING_KEY}\n",
			wantErr: "line 3: environment variable EXAMPLE_BING_KEY is not set; export it or remove ${EXAMPLE_BING_KEY}"},
		{name: "unclosed", doc: "adminToken: ab${TOKEN\n", wantErr: `adminToken: "${" is not closed by "}"`},
		{name: "bad name digit", doc: "adminToken: ${1X}\n", wantErr: "adminToken: ${1X} is not a valid variable reference"},
		{name: "bad name dash", doc: "adminToken: ${A-B}\n", wantErr: "adminToken: ${A-B} is not a valid variable reference"},
		{name: "empty name", doc: "adminToken: ${}\n", wantErr: "adminToken: ${} is not a valid variable reference"},
		{name: "env value not expanded again", doc: "adminToken: ${A}\n", vars: map[string]string{"A": "${B}"},
			want: func(c *Config) any { return c.AdminToken }, wantVal: "${B}"},
		{name: "quoted number is text for an int field", doc: siteDoc("bing:\n  dailyQuota: \"${QUOTA}\""),
			vars: map[string]string{"QUOTA": "250"}, wantErr: `line 5: site "example.com": bing.dailyQuota must be a whole number, got "250"`},
		{name: "list items", doc: siteDoc("include: [\"/${P}/**\"]"), vars: map[string]string{"P": "blog"},
			want: func(c *Config) any { return c.Sites[0].Include[0] }, wantVal: "/blog/**"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parse(tt.doc, tt.vars)
			checkErr(t, err, tt.wantErr)
			if err == nil && tt.want != nil {
				if got := tt.want(c); got != tt.wantVal {
					t.Errorf("got %#v, want %#v", got, tt.wantVal)
				}
			}
		})
	}
}

func TestExpandReportsEveryUnsetVariable(t *testing.T) {
	_, err := parse("adminToken: ${A}\nuserAgent: ${B}\n", nil)
	checkErr(t, err, "line 1: environment variable A is not set")
	checkErr(t, err, "line 2: environment variable B is not set")
}

func TestExpandLeavesKeysAlone(t *testing.T) {
	_, err := parse("listen: :80\n${KEY}: x\n", map[string]string{"KEY": "adminToken"})
	checkErr(t, err, `line 2: unknown key "${KEY}"`)
}

// TestErrorsNameTheVariable holds that a configuration error never prints a value that came from
// the environment: where it would quote it, it names the variable, as the file has it.
func TestErrorsNameTheVariable(t *testing.T) {
	const secret = "probe-secret-31337"
	tests := []struct {
		name, doc string
		vars      map[string]string
		want      string
	}{
		{name: "baseUrl with a query", doc: siteDoc("baseUrl: https://site.example?x=${SECRET}"),
			vars: map[string]string{"SECRET": secret},
			want: `baseUrl "https://site.example?x=${SECRET}" must be an origin`},
		{name: "a sitemap", doc: "sites:\n  - id: s\n    sitemaps: [\"ftp://${SECRET}/sm.xml\"]\n",
			vars: map[string]string{"SECRET": secret}, want: `sitemaps[0] "ftp://${SECRET}/sm.xml" must be`},
		{name: "a type error", doc: siteDoc("bing:\n  dailyQuota: ${SECRET}"),
			vars: map[string]string{"SECRET": secret}, want: `bing.dailyQuota must be a whole number, got "${SECRET}"`},
		{name: "escaped by %q", doc: siteDoc("baseUrl: \"https://site.example/${SECRET}\""),
			vars: map[string]string{"SECRET": secret + "\"\n"}, want: `baseUrl "https://site.example/${SECRET}" must be`},
		{name: "the longer value first", doc: siteDoc("baseUrl: https://site.example/${LONG}${SECRET}"),
			vars: map[string]string{"SECRET": secret, "LONG": secret + "-more"},
			want: `baseUrl "https://site.example/${LONG}${SECRET}" must be`},
		{name: "a number stays", doc: siteDoc("bing:\n  dailyQuota: \"${QUOTA}\""),
			vars: map[string]string{"QUOTA": "25000", "SECRET": secret}, want: `got "25000"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc, tt.vars)
			checkErr(t, err, tt.want)
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("the error prints the variable's value %q: %v", secret, err)
			}
		})
	}
}
