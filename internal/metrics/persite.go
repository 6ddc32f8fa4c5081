package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// The series of single sites that this process counts, under the names they always had; shown
// for the sites the state reader chose (stateReader.current).
var (
	siteRuns = prometheus.NewDesc("sitepush_runs_total",
		"Runs that ended, by site, trigger (schedule, manual) and status (ok, partial, failed, budget_exhausted).",
		[]string{"site", "trigger", "status"}, nil)
	siteRunSeconds = prometheus.NewDesc("sitepush_run_duration_seconds",
		"How long runs took, by site: their count and sum (sitepush_fleet_run_duration_seconds has the buckets).",
		[]string{"site"}, nil)
	siteAttempts = prometheus.NewDesc("sitepush_url_attempts_total",
		"Attempts to send URLs to engines, one per URL in each try of a request, by site, channel, endpoint and "+
			"outcome (accepted: the endpoint took them; failed: it refused them, or the last try failed; retried: it asked "+
			"to wait or failed for now, and they were tried again).",
		[]string{"site", "channel", "endpoint", "outcome"}, nil)
	siteFeedItems = prometheus.NewDesc("sitepush_feed_items_added_total",
		"New pages added to a site's feed.", []string{"site"}, nil)
	siteSitemapErrors = prometheus.NewDesc("sitepush_sitemap_errors_total",
		"Sitemaps that could not be read in a run, by site.", []string{"site"}, nil)
)

type runKey struct{ trigger, status string }

type attemptKey struct{ channel, endpoint, outcome string }

// finishedRun is what a run that ended adds to its site's counts.
type finishedRun struct {
	key                      runKey
	seconds                  float64
	sitemapErrors, feedItems float64
}

// siteCounts is what this process's runs and requests did for one site. Every site's are kept,
// shown or not, so that a site that comes among the sites shown again goes on from its count.
type siteCounts struct {
	runs          map[runKey]float64
	runCount      uint64
	runSeconds    float64
	attempts      map[attemptKey]float64
	feedItems     float64
	sitemapErrors float64
}

// siteCollector collects the series of single sites: the state's, and this process's counts, of
// the sites the state reader chose.
type siteCollector struct {
	state *stateReader

	mu     sync.Mutex
	counts map[string]*siteCounts
}

func (c *siteCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{siteRuns, siteRunSeconds, siteAttempts, siteFeedItems, siteSitemapErrors,
		quotaUsed, quotaRemaining, lastGood} {
		ch <- d
	}
}

func (c *siteCollector) Collect(ch chan<- prometheus.Metric) {
	shown, gauges := c.state.current()
	for _, m := range gauges {
		ch <- m
	}
	for _, m := range c.counted(shown) {
		ch <- m
	}
}

// counted returns this process's counts of the sites shown, as metrics.
func (c *siteCollector) counted(shown []string) []prometheus.Metric {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []prometheus.Metric
	for _, site := range shown {
		n, ok := c.counts[site]
		if !ok {
			continue
		}
		for k, v := range n.runs {
			out = append(out, prometheus.MustNewConstMetric(siteRuns, prometheus.CounterValue, v, site, k.trigger, k.status))
		}
		if n.runCount > 0 {
			out = append(out, prometheus.MustNewConstSummary(siteRunSeconds, n.runCount, n.runSeconds, nil, site))
		}
		for k, v := range n.attempts {
			out = append(out, prometheus.MustNewConstMetric(siteAttempts, prometheus.CounterValue, v, site, k.channel, k.endpoint, k.outcome))
		}
		if n.feedItems > 0 {
			out = append(out, prometheus.MustNewConstMetric(siteFeedItems, prometheus.CounterValue, n.feedItems, site))
		}
		if n.sitemapErrors > 0 {
			out = append(out, prometheus.MustNewConstMetric(siteSitemapErrors, prometheus.CounterValue, n.sitemapErrors, site))
		}
	}
	return out
}

// of returns site's counts, made on first use; the caller holds mu.
func (c *siteCollector) of(site string) *siteCounts {
	n, ok := c.counts[site]
	if !ok {
		n = &siteCounts{runs: map[runKey]float64{}, attempts: map[attemptKey]float64{}}
		c.counts[site] = n
	}
	return n
}

func (c *siteCollector) request(site string, k attemptKey, urls float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(site).attempts[k] += urls
}

func (c *siteCollector) runFinished(site string, r finishedRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.of(site)
	n.runs[r.key]++
	n.runCount++
	n.runSeconds += r.seconds
	n.feedItems += r.feedItems
	n.sitemapErrors += r.sitemapErrors
}
