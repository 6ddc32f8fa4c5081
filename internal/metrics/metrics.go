// Package metrics exposes sitepush serve's Prometheus metrics, on a registry passed in: what runs
// did, as they do it, and what the state says (Bing quotas, the last good run of each site), read
// at scrape time at most every stateTTL, so that every instance sharing a database reports the
// same state and a scrape costs a few queries and O(sites) from memory, however many scrapes and
// however long the history.
//
// The fleet's totals are always shown, without a site label. Series of single sites are shown for
// at most perSite sites (metrics.perSite), those with the most activity: with thousands of sites,
// a series a site would make each scrape megabytes.
package metrics

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
)

// Metrics are sitepush's collectors.
type Metrics struct {
	reg *prometheus.Registry
	// The fleet's totals, shown whatever perSite says.
	runs           *prometheus.CounterVec
	runSeconds     prometheus.Histogram
	attempts       *prometheus.CounterVec
	requestSeconds *prometheus.HistogramVec
	feedItems      prometheus.Counter
	sitemapErrors  prometheus.Counter
	contentChecks  *prometheus.CounterVec
	timeToCrawl    *prometheus.HistogramVec
	// sites are the series of single sites, and what the state says of them.
	sites *siteCollector
	state *stateReader
}

// runBuckets are the bounds of the fleet's histogram of run durations, in seconds.
var runBuckets = []float64{0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800}

// New registers sitepush's metrics, the Go runtime's and the process's on reg. perSite is how many
// sites have series of their own (config.Metrics.Sites); sites and state feed the metrics read at
// scrape time.
func New(reg *prometheus.Registry, perSite int, sites func() []*config.Site, state *store.Store, logger *slog.Logger) *Metrics {
	r := &stateReader{perSite: perSite, sites: sites, state: state, logger: logger, now: time.Now}
	m := &Metrics{
		reg: reg,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_fleet_runs_total",
			Help: "Runs of every site that ended, by trigger (schedule, manual) and status (ok, partial, failed, budget_exhausted)."},
			[]string{"trigger", "status"}),
		runSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sitepush_fleet_run_duration_seconds",
			Help: "How long runs of every site took.", Buckets: runBuckets}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_fleet_url_attempts_total",
			Help: "Attempts to send URLs of every site to engines, as sitepush_url_attempts_total counts them, by channel, endpoint and outcome."},
			[]string{"channel", "endpoint", "outcome"}),
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sitepush_engine_request_duration_seconds",
			Help: "Latency of requests to engines, by channel and endpoint.", Buckets: prometheus.ExponentialBuckets(0.025, 2, 10)},
			[]string{"channel", "endpoint"}),
		feedItems: prometheus.NewCounter(prometheus.CounterOpts{Name: "sitepush_fleet_feed_items_added_total",
			Help: "New pages added to the feeds of every site."}),
		sitemapErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "sitepush_fleet_sitemap_errors_total",
			Help: "Sitemaps of every site that could not be read in a run."}),
		contentChecks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_content_checks_total",
			Help: "Pages of every site whose content a run checked (docs/runs.md, \"What changed\"), by result: changed, same, not_modified (a 304, also counted same), first (nothing to compare yet) or failed."},
			[]string{"result"}),
		timeToCrawl: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sitepush_time_to_crawl_seconds",
			Help:    "Time from a URL's submission (IndexNow or Bing) to the engine's first crawl after it, observed when the crawl is first seen, by engine.",
			Buckets: []float64{3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600, 2 * 86400, 4 * 86400, 7 * 86400, 14 * 86400}},
			[]string{"engine"}),
		sites: &siteCollector{state: r, counts: map[string]*siteCounts{}},
		state: r,
	}
	reg.MustRegister(m.runs, m.runSeconds, m.attempts, m.requestSeconds, m.feedItems, m.sitemapErrors, m.contentChecks, m.timeToCrawl, m.sites,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Request counts one try of a request to an engine; it is the runner's OnRequest. A try the
// engine asked to wait after (429) or failed for now (5xx), tried again, is "retried": a wait,
// neither accepted nor failed.
func (m *Metrics) Request(site string, r channel.Request) {
	outcome := r.Outcome()
	m.attempts.WithLabelValues(r.Channel, r.Endpoint, outcome).Add(float64(r.URLs))
	m.requestSeconds.WithLabelValues(r.Channel, r.Endpoint).Observe(r.Latency.Seconds())
	m.sites.request(site, attemptKey{r.Channel, r.Endpoint, outcome}, float64(r.URLs))
}

// BingCrawled observes the time from a URL's submission to Bing's first crawl seen after it; it
// is the Bing channel's OnCrawl.
func (m *Metrics) BingCrawled(_ string, took time.Duration) {
	m.timeToCrawl.WithLabelValues("bing").Observe(took.Seconds())
}

// RunFinished counts a run that ended; the next scrape reads the state again.
func (m *Metrics) RunFinished(rec *model.Record) {
	m.state.invalidate()
	run := finishedRun{key: runKey{rec.Trigger, rec.Status}, seconds: rec.FinishedAt.Sub(rec.StartedAt).Seconds(),
		sitemapErrors: float64(rec.Sitemaps.Failed)}
	if st, ok := rec.Channels["feed"]; ok {
		run.feedItems = float64(st.Submitted)
	}
	m.runs.WithLabelValues(rec.Trigger, rec.Status).Inc()
	m.runSeconds.Observe(run.seconds)
	m.sitemapErrors.Add(run.sitemapErrors)
	m.feedItems.Add(run.feedItems)
	if c := rec.Changes; c != nil {
		for result, n := range map[string]int{"changed": c.Changed, "same": c.Same, "not_modified": c.NotModified, "first": c.First, "failed": c.Failed} {
			m.contentChecks.WithLabelValues(result).Add(float64(n))
		}
	}
	m.sites.runFinished(rec.Site, run)
}
