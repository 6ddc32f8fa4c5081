package config

import (
	"strings"
	"testing"
)

func TestValidateIndexNow(t *testing.T) {
	tests := []struct{ name, extra, want string }{
		{"enabled", "indexnow: {enabled: true, key: abcd1234}", ""},
		{"key of 128", "indexnow: {key: " + strings.Repeat("a-9Z", 32) + "}", ""},
		{"key required", "indexnow: {enabled: true}", `site "example.com": indexnow.key is required when indexnow.enabled is true`},
		{"key too short", "indexnow: {key: abcde}",
			`site "example.com": indexnow.key "abcd…" must be 8–128 characters of A–Z, a–z, 0–9 and "-" (it has 5)`},
		{"key too long", "indexnow: {key: " + strings.Repeat("a", 129) + "}", `indexnow.key "aaaa…" must be 8–128 characters of A–Z, a–z, 0–9 and "-" (it has 129)`},
		{"key bad character", "indexnow: {key: abcd_1234}", `indexnow.key "abcd…" must be 8–128 characters of A–Z, a–z, 0–9 and "-" (it has a character outside that set)`},
		{"keyLocation elsewhere on the host", "indexnow: {key: abcd1234, keyLocation: https://EXAMPLE.com/keys/k.txt}", ""},
		{"keyLocation on another host", "indexnow: {key: abcd1234, keyLocation: https://cdn.example/abcd1234.txt}",
			`site "example.com": indexnow.keyLocation "https://cdn.example/abcd1234.txt" must be on baseUrl's host (example.com): IndexNow rejects a key file on another host`},
		{"keyLocation on another port", "indexnow: {key: abcd1234, keyLocation: \"https://example.com:8443/k.txt\"}", "must be on baseUrl's host"},
		{"keyLocation not a URL", "indexnow: {key: abcd1234, keyLocation: /abcd1234.txt}",
			`site "example.com": indexnow.keyLocation "/abcd1234.txt" must be an absolute http(s) URL, like https://example.com/{key}.txt`},
		{"no endpoints when enabled", "indexnow: {enabled: true, key: abcd1234, endpoints: []}",
			`site "example.com": indexnow.endpoints needs at least one endpoint when indexnow.enabled is true`},
		{"no endpoints when disabled", "indexnow: {endpoints: []}", ""},
		{"bad endpoint", "indexnow: {endpoints: [https://a.example/, \"api.indexnow.org\"]}",
			`site "example.com": indexnow.endpoints[1] "api.indexnow.org" must be an absolute http(s) URL`},
		{"get", "indexnow: {method: get}", ""},
		{"method", "indexnow: {method: POST}", `site "example.com": indexnow.method must be post or get, got "POST"`},
		{"batchSize", "indexnow: {batchSize: 10001}", `site "example.com": indexnow.batchSize must be between 1 and 10000 (IndexNow accepts up to 10,000 URLs a request), got 10001`},
		{"batchSize zero", "indexnow: {batchSize: 0}", "indexnow.batchSize must be between 1 and 10000"},
		{"maxConcurrent", "indexnow: {maxConcurrent: 65}", `site "example.com": indexnow.maxConcurrent must be between 1 and 64, got 65`},
		{"maxConcurrent zero", "indexnow: {maxConcurrent: 0}", "indexnow.maxConcurrent must be between 1 and 64, got 0"},
		{"interval zero", "indexnow: {interval: 0}", ""},
		{"interval", "indexnow: {interval: -1ms}", `site "example.com": indexnow.interval must be 0 or more, got -1ms`},
		{"maxRetries", "indexnow: {maxRetries: 11}", `site "example.com": indexnow.maxRetries must be between 0 and 10, got 11`},
		{"backoff shorter than retries", "indexnow: {maxRetries: 5, backoff: [100ms]}", ""},
		{"no backoff without retries", "indexnow: {maxRetries: 0, backoff: []}", ""},
		{"backoff required", "indexnow: {maxRetries: 2, backoff: []}",
			`site "example.com": indexnow.backoff ([]) needs at least one wait when indexnow.maxRetries (2) is more than 0, like [1s, 2s, 4s]`},
		{"backoff required by inherited retries", "indexnow: {backoff: []}",
			`site "example.com": indexnow.backoff ([]) needs at least one wait when indexnow.maxRetries (3, inherited) is more than 0`},
		{"backoff negative", "indexnow: {backoff: [1s, -2s]}", `site "example.com": indexnow.backoff[1] must be 0 or more, got -2s`},
		{"throttleWait", "indexnow: {throttleWait: -1s}", `site "example.com": indexnow.throttleWait must be 0 or more, got -1s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(siteDoc(tt.extra), nil)
			checkErr(t, err, tt.want)
		})
	}
}

func TestValidateBing(t *testing.T) {
	tests := []struct{ name, extra, want string }{
		{"enabled", "bing: {enabled: true, apiKey: k}", ""},
		{"apiKey required", "bing: {enabled: true}", `site "example.com": bing.apiKey is required when bing.enabled is true`},
		{"quota bounds", "bing: {dailyQuota: 10000}", ""},
		{"quota zero", "bing: {dailyQuota: 0}", `site "example.com": bing.dailyQuota must be between 1 and 10000 (Bing grants up to 10,000 a day), got 0`},
		{"quota high", "bing: {dailyQuota: 10001}", "bing.dailyQuota must be between 1 and 10000 (Bing grants up to 10,000 a day), got 10001"},
		{"random", "bing: {priority: random}", ""},
		{"priority", "bing: {priority: oldest}", `site "example.com": bing.priority must be newest or random, got "oldest"`},
		{"endpoint", "bing: {endpoint: \"http://127.0.0.1:9000/api\"}", ""},
		{"bad endpoint", "bing: {endpoint: ssl.bing.com}", `site "example.com": bing.endpoint "ssl.bing.com" must be an absolute http(s) URL`},
		{"batchSize", "bing: {batchSize: 500}", ""},
		{"trackPerRun zero", "bing: {track: true, trackPerRun: 0}", ""},
		{"trackPerRun negative", "bing: {trackPerRun: -1}", `site "example.com": bing.trackPerRun must be 0 or more (0 asks Bing about no URL), got -1`},
		{"batchSize high", "bing: {batchSize: 501}", `site "example.com": bing.batchSize must be between 1 and 500 (Bing accepts up to 500 URLs a request), got 501`},
		{"batchSize zero", "bing: {batchSize: 0}", "bing.batchSize must be between 1 and 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(siteDoc(tt.extra), nil)
			checkErr(t, err, tt.want)
		})
	}
}

func TestBingKeyNeverShown(t *testing.T) {
	tests := []struct{ name, extra, want string }{
		{"validation", "bing: {enabled: true, apiKey: topsecretkey, dailyQuota: 0, priority: x}", "bing.dailyQuota must be between"},
		{"type error", "bing:\n  apiKey: !!int topsecretkey", `site "example.com": bing.apiKey must be text, got a value tagged !!int`},
		{"list", "bing:\n  apiKey: [topsecretkey]", `site "example.com": bing.apiKey must be a single value, got a list`},
		{"given twice", "bing:\n  apiKey: topsecretkey\n  apiKey: topsecretkey2", `site "example.com": key "apiKey" is given twice in bing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(siteDoc(tt.extra), nil)
			checkErr(t, err, tt.want)
			if err != nil && strings.Contains(err.Error(), "tops") {
				t.Errorf("error %q shows the Bing key", err)
			}
		})
	}
}

func TestValidateFeed(t *testing.T) {
	tests := []struct{ name, extra, want string }{
		{"bounds", "feed: {maxItems: 10000, baselineItems: 10000, keepDays: 0}", ""},
		{"maxItems zero", "feed: {maxItems: 0, baselineItems: 0}", `site "example.com": feed.maxItems must be between 1 and 10000, got 0`},
		{"maxItems high", "feed: {maxItems: 10001}", "feed.maxItems must be between 1 and 10000, got 10001"},
		{"baseline above maxItems", "feed: {maxItems: 5}", `site "example.com": feed.baselineItems (10, inherited) must be at most feed.maxItems (5)`},
		{"baseline above inherited maxItems", "feed: {baselineItems: 51}", `site "example.com": feed.baselineItems (51) must be at most feed.maxItems (50, inherited)`},
		{"baseline negative", "feed: {baselineItems: -1}", `site "example.com": feed.baselineItems must be 0 or more, got -1`},
		{"keepDays", "feed: {keepDays: -1}", `site "example.com": feed.keepDays must be 0 or more, got -1`},
		{"url", "feed: {url: \"feed.xml\"}", `site "example.com": feed.url "feed.xml" must be an absolute http(s) URL, where readers find the feed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(siteDoc(tt.extra), nil)
			checkErr(t, err, tt.want)
		})
	}
}

func TestMaskKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a", "…"},
		{"abcd", "…"},
		{"abcde", "abcd…"},
		{"0123456789abcdef", "0123…"},
		{"ééééé", "éééé…"},
	}
	for _, tt := range tests {
		if got := MaskKey(tt.in); got != tt.want {
			t.Errorf("MaskKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
