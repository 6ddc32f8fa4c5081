package config

import (
	"strings"
	"testing"
)

func TestStrictKeys(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    string
		notWant string
	}{
		{name: "top-level typo", doc: "listen: :80\nstat: sqlite:x.db\n",
			want: `line 2: unknown key "stat" (known: state, listen, adminToken, metricsToken, metrics, publicUrl, userAgent, webhook, serve, defaults, sites); did you mean "state"?`},
		{name: "nested typo with line", doc: siteDoc("indexnow:\n  enabled: false\n  endpoint: [https://x.example/]"),
			want: `line 6: site "example.com": unknown key "endpoint" in indexnow (known: enabled, key, keyLocation, ` +
				`endpoints, method, batchSize, maxConcurrent, interval, maxRetries, backoff, throttleWait, preflight, backlog, removed); did you mean "endpoints"?`},
		{name: "case only", doc: siteDoc("baseURL: https://example.com"),
			want: `line 4: site "example.com": unknown key "baseURL" (known: id, sitemaps, baseUrl, schedule, runBudget, ` +
				`resubmitAfter, preflightAfter, backlog, include, exclude, sitemap, changes, indexnow, bing, feed, google); did you mean "baseUrl"?`},
		{name: "case and a letter", doc: siteDoc("feed:\n  maxitem: 3"), want: `did you mean "maxItems"?`},
		{name: "no suggestion when far", doc: "defaults:\n  color: blue\n",
			want: `line 2: defaults: unknown key "color" (known: schedule, runBudget,`, notWant: "did you mean"},
		{name: "unknown key with an empty value", doc: siteDoc("bing:\n  enabeld:"),
			want: `line 5: site "example.com": unknown key "enabeld" in bing`},
		{name: "site-only key in defaults", doc: "defaults:\n  baseUrl: https://example.com\n",
			want: "line 2: defaults: baseUrl belongs to each site and cannot be given in defaults", notWant: "unknown key"},
		{name: "id in defaults", doc: "defaults:\n  id: x\n", want: "line 2: defaults: id belongs to each site"},
		{name: "empty id in defaults", doc: "defaults:\n  id:\n", want: "line 2: defaults: id belongs to each site"},
		{name: "sitemaps in defaults", doc: "defaults:\n  sitemaps: [a.xml]\n", want: "line 2: defaults: sitemaps belongs to each site"},
		{name: "webhook", doc: "webhook:\n  url: https://h.example/\n  rate: 0.5\n",
			want: `line 3: unknown key "rate" in webhook (known: url, failureRate)`},
		{name: "serve", doc: "serve:\n  concurency: 8\n",
			want: `line 2: unknown key "concurency" in serve (known: concurrency); did you mean "concurrency"?`},
		{name: "serve fraction", doc: "serve: {concurrency: 2.5}\n", want: `serve.concurrency must be a whole number, got "2.5"`},
		{name: "sitemap given a URL", doc: siteDoc("sitemap: https://example.com/news.xml"),
			want: "line 4: site \"example.com\": sitemap holds the settings for reading sitemaps (a mapping like {timeout: 30s}), " +
				"not the sitemaps; did you mean `sitemaps: [https://example.com/news.xml]`?"},
		{name: "sitemap given a list", doc: siteDoc("sitemap: [a.xml, b.xml]"), want: "line 4: site \"example.com\": sitemap holds the settings " +
			"for reading sitemaps (a mapping like {timeout: 30s}), not the sitemaps; did you mean `sitemaps: [URL]`?"},
		{name: "sitemap given a URL in defaults", doc: "defaults:\n  sitemap: https://example.com/s.xml\n",
			want: "line 2: defaults: sitemap holds the settings for reading sitemaps (a mapping like {timeout: 30s}), not the sitemaps; " +
				"did you mean `sitemaps: [https://example.com/s.xml]` on each site?"},
		{name: "site without id", doc: "sites:\n  - sitemaps: [a.xml]\n    bogus: 1\n",
			want: `line 3: site #1: unknown key "bogus" (known:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc, nil)
			checkErr(t, err, tt.want)
			if err != nil && tt.notWant != "" && strings.Contains(err.Error(), tt.notWant) {
				t.Errorf("error %q contains %q", err, tt.notWant)
			}
		})
	}
}

func TestDuplicateKey(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{name: "top level", doc: "listen: :80\nstate: sqlite:a.db\nlisten: :81\n",
			want: `line 3: key "listen" is given twice (first at line 1); remove one`},
		{name: "in a site block", doc: siteDoc("bing:\n  priority: newest\n  dailyQuota: 5\n  priority: random"),
			want: `line 7: site "example.com": key "priority" is given twice in bing (first at line 5); remove one`},
		{name: "site key", doc: siteDoc("schedule: \"0 1 * * *\"\nschedule: \"0 2 * * *\""),
			want: `line 5: site "example.com": key "schedule" is given twice (first at line 4)`},
		{name: "second one empty", doc: "listen: :80\nlisten:\n",
			want: `line 2: key "listen" is given twice (first at line 1); remove one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc, nil)
			checkErr(t, err, tt.want)
		})
	}
}

func TestTypeErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{name: "int", doc: siteDoc("indexnow:\n  batchSize: ten"),
			want: `line 5: site "example.com": indexnow.batchSize must be a whole number, got "ten"`},
		{name: "bool", doc: siteDoc("feed:\n  enabled: sure"),
			want: `line 5: site "example.com": feed.enabled must be true or false, got "sure"`},
		{name: "fraction in an int", doc: siteDoc("bing:\n  dailyQuota: 100.9"),
			want: `line 5: site "example.com": bing.dailyQuota must be a whole number, got "100.9"`},
		{name: "exponent in an int64", doc: "defaults:\n  sitemap:\n    maxBytes: 1e6\n",
			want: `line 3: defaults: sitemap.maxBytes must be a whole number, got "1e6"`},
		{name: "whole number written as a fraction", doc: siteDoc("feed:\n  keepDays: 30.0"),
			want: `line 5: site "example.com": feed.keepDays must be a whole number, got "30.0"`},
		{name: "tagged text", doc: "adminToken: !!int s3cret\n",
			want: "adminToken must be text, got a value tagged !!int; remove the tag"},
		{name: "float", doc: "webhook:\n  url: https://h.example/\n  failureRate: half\n",
			want: `line 3: webhook.failureRate must be a number, got "half"`},
		{name: "duration", doc: "defaults:\n  runBudget: 5\n",
			want: `line 2: defaults: runBudget must be a duration; use Go syntax like 30s, 100ms, 1h30m or 720h`},
		{name: "duration in list", doc: "defaults:\n  indexnow:\n    backoff: [1s, 2x]\n",
			want: `line 3: defaults: indexnow.backoff[1] must be a duration; use Go syntax`},
		{name: "list where a mapping belongs", doc: siteDoc("bing:\n  - enabled"),
			want: `line 5: site "example.com": bing must be a mapping of keys, got a list`},
		{name: "value where a list belongs", doc: "sites:\n  - id: a\n    sitemaps: https://a.example/s.xml\n",
			want: `line 3: site "a": sitemaps must be a list like [a, b], got a single value`},
		{name: "mapping where a value belongs", doc: "state:\n  path: x\n",
			want: "line 2: state must be a single value, got a mapping of keys"},
		{name: "sites not a list", doc: "sites:\n  id: a\n", want: "line 2: sites must be a list like [a, b], got a mapping of keys"},
		{name: "site not a mapping", doc: "sites:\n  - a.example\n", want: "line 2: site #1 must be a mapping of keys, got a single value"},
		{name: "empty site in a flow list", doc: "sites: [~]\n", want: `site #1 is empty; remove the "-" or give its keys`},
		{name: "bare dash", doc: "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n  -\n",
			want: `line 4: site #2 is empty; remove the "-" or give its keys`},
		{name: "document not a mapping", doc: "- a\n", want: "the configuration must be a mapping of keys, got a list"},
		{name: "defaults not a mapping", doc: "defaults: [a]\n", want: "defaults must be a mapping of keys, got a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc, nil)
			checkErr(t, err, tt.want)
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows a secret", err)
			}
		})
	}
}

func TestSyntaxErrorKeepsLine(t *testing.T) {
	_, err := parse("listen: :80\nstate: x\n  bad: y\n", nil)
	checkErr(t, err, "line 3: `bad:` is indented 2 spaces")
	if err != nil && strings.HasPrefix(err.Error(), "yaml: ") {
		t.Errorf("error %q keeps yaml's prefix", err)
	}
	_, err = parse("listen: a: b\n", nil)
	checkErr(t, err, "line 1: mapping values are not allowed")
	_, err = parse("listen: *nowhere\n", nil)
	checkErr(t, err, "unknown anchor 'nowhere' referenced")
	_, err = parse("listen: :80\n---\nstate: sqlite:x.db\n", nil)
	checkErr(t, err, "line 3: a second YAML document starts here")
	// yaml.v3 names where the construct began, counted from 0: the line where the problem is.
	for _, tc := range []struct{ doc, want string }{
		{"sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml\n    indexnow: {enabled: true}\n", "line 3: did not find expected ',' or ']'"},
		{"sites:\n  - id: a\n   sitemaps: x\n", "line 3: `sitemaps:` is indented 3 spaces"},
		{"sites:\n  - id: a\n    sitemaps: [a,\n      b]\n    x: {y: 1\n", "line 5: did not find expected ',' or '}'"},
		{"sites: [{id: a,\n  x: 1\n", "line 2: did not find expected ',' or '}'"},
		{"sites:\n  - id: a\n    sitemaps: [x]\n\tbad: 1\n", "line 4: found character that cannot start any token (a tab: YAML indents with spaces)"},
		{"sites:\n  - id: a\n\tsitemaps: [x]\n", "line 3: found a tab character that violates indentation"},
	} {
		_, err = parse(tc.doc, nil)
		checkErr(t, err, tc.want)
	}
}

// TestIndentationErrorsNameTheIndentation: a key indented to no level of the keys above it is
// told as that, with the levels it could have, not as what the parser looked for instead.
func TestIndentationErrorsNameTheIndentation(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"less than its siblings", "sites:\n  - id: a\n    sitemaps: [x]\n   baseUrl: https://a.example\n",
			"line 4: `baseUrl:` is indented 3 spaces, which lines it up with no key above it (the keys above are at 4, 2 or 0 spaces): " +
				"indent it as far as the key it belongs beside, with spaces"},
		{"more than its siblings", "sites:\n  - id: a\n    indexnow:\n      enabled: true\n     key: x\n",
			"line 5: `key:` is indented 5 spaces, which lines it up with no key above it (the keys above are at 6, 4, 2 or 0 spaces)"},
		{"in defaults", "defaults:\n  indexnow:\n    enabled: true\n   backlog: all\n",
			"line 4: `backlog:` is indented 3 spaces, which lines it up with no key above it (the keys above are at 4, 2 or 0 spaces)"},
		{"under a value", "state: x\n  listen: :80\n", "line 2: `listen:` is indented 2 spaces, which lines it up with no key above it (the key above is at 0 spaces)"},
		{"a list item", "sites:\n- id: a\n  sitemaps: [x]\n - id: b\n", "line 4: `- id:` is indented 1 space"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.doc, nil)
			checkErr(t, err, tc.want)
			if err != nil && strings.Contains(err.Error(), "did not find expected") {
				t.Errorf("the error keeps the parser's words: %v", err)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"endpoint", "endpoints", 1}, {"kitten", "sitting", 3}, {"maxitem", "maxitems", 1},
	}
	for _, tt := range tests {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
