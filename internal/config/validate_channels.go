package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// keyProblem says why an IndexNow key is malformed, or returns "" for a well-formed one.
func keyProblem(key string) string {
	n := utf8.RuneCountInString(key)
	switch {
	case n < 8 || n > 128:
		return fmt.Sprintf("it has %d", n)
	case strings.ContainsFunc(key, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-')
	}):
		return "it has a character outside that set"
	}
	return ""
}

func checkIndexNow(in *IndexNow, p *problems) {
	if in.Key != "" {
		if why := keyProblem(in.Key); why != "" {
			p.fieldf("indexnow.key", `indexnow.key %q must be 8–128 characters of A–Z, a–z, 0–9 and "-" (%s)`, MaskKey(in.Key), why)
		}
	}
	for i, e := range in.Endpoints {
		if httpURL(e) == nil {
			p.fieldf("indexnow.endpoints", "indexnow.endpoints[%d] %q must be an absolute http(s) URL, like https://api.indexnow.org/indexnow", i, e)
		}
	}
	if in.Method != "post" && in.Method != "get" {
		p.fieldf("indexnow.method", "indexnow.method must be post or get, got %q", in.Method)
	}
	p.between("indexnow.batchSize", int64(in.BatchSize), 1, 10000, "IndexNow accepts up to 10,000 URLs a request")
	p.between("indexnow.maxConcurrent", int64(in.MaxConcurrent), 1, 64, "")
	p.notNegative("indexnow.interval", in.Interval)
	p.between("indexnow.maxRetries", int64(in.MaxRetries), 0, 10, "")
	for i, b := range in.Backoff {
		if b < 0 {
			p.fieldf("indexnow.backoff", "indexnow.backoff[%d] must be 0 or more, got %s", i, b)
		}
	}
	if in.MaxRetries > 0 && len(in.Backoff) == 0 && p.wrote("indexnow.maxRetries", "indexnow.backoff") {
		p.addf("indexnow.backoff (%s) needs at least one wait when indexnow.maxRetries (%s) is more than 0, "+
			"like [1s, 2s, 4s] (the last one is reused for further retries)",
			p.shown("indexnow.backoff", "[]"), p.shown("indexnow.maxRetries", in.MaxRetries))
	}
	p.notNegative("indexnow.throttleWait", in.ThrottleWait)
}

func checkBing(b *Bing, p *problems) {
	p.between("bing.dailyQuota", int64(b.DailyQuota), 1, 10000, "Bing grants up to 10,000 a day")
	if b.Priority != "newest" && b.Priority != "random" {
		p.fieldf("bing.priority", "bing.priority must be newest or random, got %q", b.Priority)
	}
	if httpURL(b.Endpoint) == nil {
		p.fieldf("bing.endpoint", "bing.endpoint %q must be an absolute http(s) URL, like https://ssl.bing.com/webmaster/api.svc/json", b.Endpoint)
	}
	p.between("bing.batchSize", int64(b.BatchSize), 1, 500, "Bing accepts up to 500 URLs a request")
	if b.TrackPerRun < 0 {
		p.fieldf("bing.trackPerRun", "bing.trackPerRun must be 0 or more (0 asks Bing about no URL), got %d", b.TrackPerRun)
	}
}

func checkFeed(f *Feed, p *problems) {
	p.between("feed.maxItems", int64(f.MaxItems), 1, 10000, "")
	if f.BaselineItems < 0 {
		p.fieldf("feed.baselineItems", "feed.baselineItems must be 0 or more, got %d", f.BaselineItems)
	}
	if f.BaselineItems > f.MaxItems && p.wrote("feed.baselineItems", "feed.maxItems") {
		p.addf("feed.baselineItems (%s) must be at most feed.maxItems (%s)",
			p.shown("feed.baselineItems", f.BaselineItems), p.shown("feed.maxItems", f.MaxItems))
	}
	if f.KeepDays < 0 {
		p.fieldf("feed.keepDays", "feed.keepDays must be 0 or more, got %d", f.KeepDays)
	}
	if f.URL != "" && httpURL(f.URL) == nil {
		p.fieldf("feed.url", "feed.url %q must be an absolute http(s) URL, where readers find the feed", f.URL)
	}
}

func checkGoogle(g *Google, p *problems) {
	if g.Property != "" && !strings.HasPrefix(g.Property, "sc-domain:") {
		if u := httpURL(g.Property); u == nil || !strings.HasSuffix(g.Property, "/") {
			p.fieldf("google.property", `google.property %q must be a Search Console property: sc-domain:example.com for a domain, `+
				`or a URL prefix ending in "/", like https://example.com/`, g.Property)
		}
	}
	p.between("google.inspectPerDay", int64(g.InspectPerDay), 1, 2000, "Google allows 2,000 inspections a day per property")
	if httpURL(g.Endpoint) == nil {
		p.fieldf("google.endpoint", "google.endpoint %q must be an absolute http(s) URL, like https://www.googleapis.com", g.Endpoint)
	}
}

// MaskKey shows a key by its first four characters only ("abcd…"), the one form in which keys may
// appear in logs, output and API responses. A key of four characters or fewer shows nothing but
// "…", and an empty key stays empty so that "not set" remains visible.
func MaskKey(k string) string {
	if k == "" {
		return ""
	}
	if utf8.RuneCountInString(k) <= 4 {
		return "…"
	}
	i := 0
	for n := 0; n < 4; n++ {
		_, size := utf8.DecodeRuneInString(k[i:])
		i += size
	}
	return k[:i] + "…"
}
