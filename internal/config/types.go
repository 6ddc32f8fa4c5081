// Package config loads sitepush's YAML configuration: ${VAR} expansion, strict keys, defaults
// inherited by every site, and validation whose messages name the site, the field and the rule.
package config

import (
	"time"
)

// Config is a loaded and validated configuration file.
type Config struct {
	// State selects the store: "sqlite:PATH" or "postgres://…".
	State string `yaml:"state"`
	// Listen is the address `sitepush serve` binds.
	Listen string `yaml:"listen"`
	// AdminToken guards the admin API of `sitepush serve`.
	AdminToken string `yaml:"adminToken"`
	// MetricsToken, when set, is the bearer token `sitepush serve` asks of GET /metrics, which
	// is open without it.
	MetricsToken string `yaml:"metricsToken"`
	// Metrics bounds what GET /metrics of `sitepush serve` shows.
	Metrics Metrics `yaml:"metrics"`
	// PublicURL is where readers reach `sitepush serve` (https://push.example.com): the feeds of
	// the sites created through the API link to themselves there, at /feeds/{id}.xml.
	PublicURL string `yaml:"publicUrl"`
	// UserAgent is sent with every request sitepush makes to a website.
	UserAgent string `yaml:"userAgent"`
	// Webhook, when set, receives alerts about failing runs.
	Webhook *Webhook `yaml:"webhook"`
	// Serve holds what only `sitepush serve` reads.
	Serve Serve `yaml:"serve"`
	// Defaults are the settings every site inherits; a site may override any of them.
	Defaults Settings `yaml:"defaults"`
	// Sites are the sites declared in the file, with the defaults already applied.
	Sites []Site `yaml:"sites"`

	// Dir is the directory of the configuration file: relative paths in it are resolved against Dir.
	Dir string `yaml:"-"`
	// Unread are the ${VAR} left unset in settings the command that loaded the file does not
	// read (LoadFor); those settings are not given.
	Unread []Unread `yaml:"-"`
	// defaultsGiven are the keys the file's defaults wrote: with a site's own, those its
	// Given reports.
	defaultsGiven keySet
}

// Serve holds the settings of `sitepush serve` alone.
type Serve struct {
	// Concurrency is how many scheduled runs go at once; the other due sites wait in a queue, the
	// oldest fire time first. Triggered runs start at once beside them.
	Concurrency int `yaml:"concurrency" json:"concurrency"`
}

// Webhook is where alerts go.
type Webhook struct {
	// URL receives the alerts; it often carries a token, so it is never shown in messages.
	URL string `yaml:"url" json:"url"`
	// FailureRate is the share of failed submissions in a channel's run above which an alert is sent.
	FailureRate float64 `yaml:"failureRate" json:"failureRate"`
}

// Site is one website sitepush watches.
type Site struct {
	// ID names the site in commands, URLs (/feeds/{id}.xml) and file names, so it is unique in a
	// file regardless of case.
	ID string `yaml:"id" json:"id"`
	// Sitemaps are the sitemaps read on each run: http(s) URLs, or local file paths (any value
	// without a scheme), resolved against the configuration file's directory.
	Sitemaps []string `yaml:"sitemaps" json:"sitemaps"`
	// BaseURL is the site's origin; URLs on other hosts are never submitted.
	BaseURL string `yaml:"baseUrl" json:"baseUrl"`
	// Settings are the site's inheritable settings, written at the site's own level in YAML.
	Settings `yaml:",inline"`

	// compiled is what Validate parsed: the cron schedule and the include/exclude globs.
	compiled compiled
	// warnings are what Warnings returns.
	warnings []string
	// unread holds the settings whose ${VAR} is not set, which the command does not read
	// (Config.Unread): a key required when its channel is on is not required of them.
	unread map[string]bool
	// feedServed is set when the feed is only served by sitepush (Needs.FeedsServed) and feed.url
	// was not given: it does not default to the website's.
	feedServed bool
	// given holds the keys the configuration wrote for the site, its own and its defaults'; nil
	// for a site built outside the file, every value of which counts as given.
	given keySet
}

// Given reports whether the configuration wrote the setting at path (like "bing.dailyQuota") for
// the site, at its own level or under defaults, rather than leaving it at sitepush's built-in
// value: a page that tells what limits a site names a limit the user chose, and keeps quiet of
// one nobody chose.
func (s *Site) Given(path string) bool { return s.given.has(path) }

// PreflightWait is how long a URL a preflight held back on channel waits, unchanged, before it is
// due again: preflightAfter when the channel preflights, else 0 (due at once: the channel no
// longer checks).
func (s *Site) PreflightWait(channel string) time.Duration {
	if s.Preflights(channel) {
		return s.PreflightAfter.D()
	}
	return 0
}

// Settings are the parts of a site that may also be given once under `defaults`.
type Settings struct {
	// Schedule is a five-field cron expression, evaluated in UTC.
	Schedule string `yaml:"schedule" json:"schedule"`
	// RunBudget stops a run gracefully after this long; the rest continues next run.
	RunBudget Duration `yaml:"runBudget" json:"runBudget"`
	// ResubmitAfter makes an unchanged URL due again after this long; 0 means never.
	ResubmitAfter Duration `yaml:"resubmitAfter" json:"resubmitAfter"`
	// PreflightAfter is how long a URL a preflight found ineligible waits, unchanged, before it is
	// checked again (docs/runs.md, "Preflight"); a change of its lastmod checks it at once.
	PreflightAfter Duration `yaml:"preflightAfter" json:"preflightAfter"`
	// Backlog is what IndexNow and Bing send of the URLs already there when they first run for
	// the site: all, none, or those whose lastmod is within a duration. indexnow.backlog and
	// bing.backlog, when given, set it for their channel.
	Backlog Backlog `yaml:"backlog" json:"backlog"`
	// Include lists URL path globs ("/blog/**") a URL must match to be submitted; empty means every path.
	Include []string `yaml:"include" json:"include,omitempty"`
	// Exclude lists URL path globs that are never submitted; it wins over Include.
	Exclude []string `yaml:"exclude" json:"exclude,omitempty"`
	// Sitemap bounds the reading of the site's sitemaps.
	Sitemap Sitemap `yaml:"sitemap" json:"sitemap"`
	// Changes says how a run tells a changed page from an unchanged one; its dir is the site's own.
	Changes Changes `yaml:"changes" json:"changes"`
	// IndexNow is the IndexNow channel.
	IndexNow IndexNow `yaml:"indexnow" json:"indexnow"`
	// Bing is the Bing Webmaster API channel.
	Bing Bing `yaml:"bing" json:"bing"`
	// Feed is the RSS feed channel.
	Feed Feed `yaml:"feed" json:"feed"`
	// Google is Search Console: the site's changed sitemaps submitted, the URLs sent inspected.
	// It is no channel — it follows a run up (docs/runs.md, "What happens after a URL is sent").
	Google Google `yaml:"google" json:"google"`
}

// Sitemap holds the limits of sitemap reading.
type Sitemap struct {
	// Timeout bounds the fetch of one sitemap file, so that a stalled server cannot hold a run.
	Timeout Duration `yaml:"timeout" json:"timeout"`
	// Retries is how many times a failed fetch is tried again.
	Retries int `yaml:"retries" json:"retries"`
	// RetryInterval is the wait between two tries of one fetch.
	RetryInterval Duration `yaml:"retryInterval" json:"retryInterval"`
	// MaxBytes caps one sitemap file after decompression.
	MaxBytes int64 `yaml:"maxBytes" json:"maxBytes"`
	// MaxDepth caps the nesting of sitemap indexes.
	MaxDepth int `yaml:"maxDepth" json:"maxDepth"`
}

// IndexNow configures the IndexNow channel.
type IndexNow struct {
	// Enabled turns the channel on; every channel is off unless its block says so.
	Enabled bool `yaml:"enabled" json:"enabled"`
	// Key is 8–128 characters of [A-Za-z0-9-], served by the site at KeyLocation.
	Key string `yaml:"key" json:"key"`
	// KeyLocation is the URL of the key file, on BaseURL's host; it defaults to {baseUrl}/{key}.txt.
	KeyLocation string `yaml:"keyLocation" json:"keyLocation"`
	// Endpoints are the IndexNow APIs submitted to, each independently.
	Endpoints []string `yaml:"endpoints" json:"endpoints"`
	// Method is "post" (JSON batches of up to BatchSize URLs) or "get" (one URL per request).
	Method string `yaml:"method" json:"method"`
	// BatchSize is the number of URLs per POST request (IndexNow accepts up to 10,000).
	BatchSize int `yaml:"batchSize" json:"batchSize"`
	// MaxConcurrent bounds the requests in flight per endpoint.
	MaxConcurrent int `yaml:"maxConcurrent" json:"maxConcurrent"`
	// Interval is the least time between the starts of two requests to one endpoint.
	Interval Duration `yaml:"interval" json:"interval"`
	// MaxRetries is how many times a throttled or failed request is tried again.
	MaxRetries int `yaml:"maxRetries" json:"maxRetries"`
	// Backoff lists the waits before each retry after a server or network error; the last one is reused.
	Backoff []Duration `yaml:"backoff" json:"backoff"`
	// ThrottleWait is the wait after HTTP 429 when the response gives no Retry-After.
	ThrottleWait Duration `yaml:"throttleWait" json:"throttleWait"`
	// Preflight fetches each URL before it is sent and holds back those an engine would not
	// index (noindex, another canonical, a redirect, an error, robots.txt): off by default, as
	// IndexNow costs nothing per URL.
	Preflight bool `yaml:"preflight" json:"preflight"`
	// Backlog is the site's backlog setting for IndexNow alone; empty, it is the site's.
	Backlog Backlog `yaml:"backlog" json:"backlog,omitempty"`
	// Removed announces the URLs that leave every sitemap and answer 404 or 410, once each: the
	// IndexNow protocol covers deletions.
	Removed bool `yaml:"removed" json:"removed"`
}

// Bing configures the Bing Webmaster API channel.
type Bing struct {
	// Enabled turns the channel on; every channel is off unless its block says so.
	Enabled bool `yaml:"enabled" json:"enabled"`
	// APIKey is a secret: it is never printed or returned, only its first four characters.
	APIKey string `yaml:"apiKey" json:"apiKey"`
	// DailyQuota is the number of URLs Bing accepts for the site per UTC day.
	DailyQuota int `yaml:"dailyQuota" json:"dailyQuota"`
	// Priority chooses what goes first when more is due than the quota allows: newest or random.
	Priority string `yaml:"priority" json:"priority"`
	// Endpoint is the base URL of the Bing Webmaster JSON API, overridable for tests and proxies.
	Endpoint string `yaml:"endpoint" json:"endpoint"`
	// BatchSize is the number of URLs per SubmitUrlbatch request (Bing accepts up to 500).
	BatchSize int `yaml:"batchSize" json:"batchSize"`
	// Track asks Bing (GetUrlInfo) whether it crawled the URLs submitted in the last 14 days,
	// through IndexNow or Bing, until it is seen to have crawled each after its submission.
	Track bool `yaml:"track" json:"track"`
	// TrackPerRun is how many URLs a run asks Bing about at most, the oldest submission first.
	TrackPerRun int `yaml:"trackPerRun" json:"trackPerRun"`
	// Preflight fetches each URL before it is sent and holds back those Bing would not index,
	// so that none of the daily quota goes on them: on by default.
	Preflight bool `yaml:"preflight" json:"preflight"`
	// Backlog is the site's backlog setting for Bing alone; empty, it is the site's.
	Backlog Backlog `yaml:"backlog" json:"backlog,omitempty"`
}

// Feed configures the RSS feed of the site's new pages.
type Feed struct {
	// Enabled turns the channel on; every channel is off unless its block says so.
	Enabled bool `yaml:"enabled" json:"enabled"`
	// Title is the channel title; it defaults to "{id} — new pages".
	Title string `yaml:"title" json:"title"`
	// Description is the channel description; it defaults to "New pages on {host of baseUrl}".
	Description string `yaml:"description" json:"description"`
	// MaxItems is how many of the newest items the feed shows.
	MaxItems int `yaml:"maxItems" json:"maxItems"`
	// FetchTitles fetches each new page once for its title and description.
	FetchTitles bool `yaml:"fetchTitles" json:"fetchTitles"`
	// BaselineItems is how many of the newest pages become items on the first run.
	BaselineItems int `yaml:"baselineItems" json:"baselineItems"`
	// KeepDays keeps item records beyond the newest MaxItems for this many days after they were first seen.
	KeepDays int `yaml:"keepDays" json:"keepDays"`
	// Out, when set, is a file the feed is written to after each run that changed it; two sites
	// with enabled feeds cannot share one.
	Out string `yaml:"out" json:"out,omitempty"`
	// URL is where readers find the feed, for its atom:link rel="self"; it defaults to
	// {baseUrl}/feed.xml, where a static site usually publishes feed.out.
	URL string `yaml:"url" json:"url"`
}

// Google configures what Google is told and asked through its Search Console API, with a
// service account that is an owner or full user of the property.
type Google struct {
	// Enabled turns Google on; it is off unless its block says so.
	Enabled bool `yaml:"enabled" json:"enabled"`
	// Credentials is the path of the service account's JSON key file. The path is shown; the
	// file's content is a secret, read only to sign the token request sent to its token_uri.
	Credentials string `yaml:"credentials" json:"credentials"`
	// Property is the Search Console property: sc-domain:example.com, or a URL prefix such as
	// https://example.com/.
	Property string `yaml:"property" json:"property"`
	// Sitemaps submits each sitemap a run finds new or changed to Search Console.
	Sitemaps bool `yaml:"sitemaps" json:"sitemaps"`
	// Inspect asks URL Inspection about the URLs sent, once after each submission.
	Inspect bool `yaml:"inspect" json:"inspect"`
	// InspectPerDay caps the inspections of the property per UTC day (Google allows 2,000).
	InspectPerDay int `yaml:"inspectPerDay" json:"inspectPerDay"`
	// Endpoint is the base URL of both APIs, overridable for tests and proxies.
	Endpoint string `yaml:"endpoint" json:"endpoint"`
}
