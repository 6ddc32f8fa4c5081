// Package metrics exposes sitepush serve's Prometheus metrics, on a registry passed in: what runs
// did, as they do it, and what the state says (Bing quotas, the last good run of each site), read
// at scrape time at most every stateTTL, so that every instance sharing a database reports the
// same state and a scrape costs O(sites) from memory, however many scrapes and however long the
// history.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
)

// Metrics are sitepush's collectors.
type Metrics struct {
	reg            *prometheus.Registry
	runs           *prometheus.CounterVec
	runSeconds     *prometheus.HistogramVec
	attempts       *prometheus.CounterVec
	requestSeconds *prometheus.HistogramVec
	feedItems      *prometheus.CounterVec
	sitemapErrors  *prometheus.CounterVec
	timeToCrawl    *prometheus.HistogramVec
	state          *stateCollector
}

// New registers sitepush's metrics, the Go runtime's and the process's on reg. sites and state
// feed the metrics read at scrape time.
func New(reg *prometheus.Registry, sites func() []*config.Site, state *store.Store, logger *slog.Logger) *Metrics {
	m := &Metrics{
		reg: reg,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_runs_total",
			Help: "Runs that ended, by site, trigger (schedule, manual) and status (ok, partial, failed, budget_exhausted)."},
			[]string{"site", "trigger", "status"}),
		runSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sitepush_run_duration_seconds",
			Help: "How long runs took, by site.", Buckets: []float64{0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800}},
			[]string{"site"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_url_attempts_total",
			Help: "Attempts to send URLs to engines, one per URL in each try of a request, by site, channel, endpoint and " +
				"outcome (accepted: the endpoint took them; failed: it refused them, or the last try failed; retried: it asked " +
				"to wait or failed for now, and they were tried again)."},
			[]string{"site", "channel", "endpoint", "outcome"}),
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sitepush_engine_request_duration_seconds",
			Help: "Latency of requests to engines, by channel and endpoint.", Buckets: prometheus.ExponentialBuckets(0.025, 2, 10)},
			[]string{"channel", "endpoint"}),
		feedItems: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_feed_items_added_total",
			Help: "New pages added to a site's feed."}, []string{"site"}),
		sitemapErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_sitemap_errors_total",
			Help: "Sitemaps that could not be read in a run, by site."}, []string{"site"}),
		timeToCrawl: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sitepush_time_to_crawl_seconds",
			Help:    "Time from a URL's submission (IndexNow or Bing) to the engine's first crawl after it, observed when the crawl is first seen, by engine.",
			Buckets: []float64{3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600, 2 * 86400, 4 * 86400, 7 * 86400, 14 * 86400}},
			[]string{"engine"}),
		state: &stateCollector{sites: sites, state: state, logger: logger, now: time.Now},
	}
	reg.MustRegister(m.runs, m.runSeconds, m.attempts, m.requestSeconds, m.feedItems, m.sitemapErrors, m.timeToCrawl, m.state,
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
	m.attempts.WithLabelValues(site, r.Channel, r.Endpoint, r.Outcome()).Add(float64(r.URLs))
	m.requestSeconds.WithLabelValues(r.Channel, r.Endpoint).Observe(r.Latency.Seconds())
}

// BingCrawled observes the time from a URL's submission to Bing's first crawl seen after it; it
// is the Bing channel's OnCrawl.
func (m *Metrics) BingCrawled(_ string, took time.Duration) {
	m.timeToCrawl.WithLabelValues("bing").Observe(took.Seconds())
}

// RunFinished counts a run that ended; the next scrape reads the state again.
func (m *Metrics) RunFinished(rec *model.Record) {
	m.state.invalidate()
	m.runs.WithLabelValues(rec.Site, rec.Trigger, rec.Status).Inc()
	m.runSeconds.WithLabelValues(rec.Site).Observe(rec.FinishedAt.Sub(rec.StartedAt).Seconds())
	if rec.Sitemaps.Failed > 0 {
		m.sitemapErrors.WithLabelValues(rec.Site).Add(float64(rec.Sitemaps.Failed))
	}
	if st, ok := rec.Channels["feed"]; ok && st.Submitted > 0 {
		m.feedItems.WithLabelValues(rec.Site).Add(float64(st.Submitted))
	}
}

// stateTTL is how long what the state says is kept for scrapes: a burst of scrapes, from one
// Prometheus or many clients, reads the state once.
const stateTTL = 10 * time.Second

// stateCollector reads, at scrape time, the Bing quota of the day and each site's last good run:
// two index seeks a site, made at most once per stateTTL and sooner after a run of this process
// ended. Every scrape in between is answered from memory.
type stateCollector struct {
	sites  func() []*config.Site
	state  *store.Store
	logger *slog.Logger
	now    func() time.Time

	// mu is held while the state is read, so that concurrent scrapes wait for one read.
	mu     sync.Mutex
	readAt time.Time // zero: read at the next scrape
	values []prometheus.Metric
}

var (
	quotaUsed = prometheus.NewDesc("sitepush_bing_quota_used",
		"Bing URLs reserved or sent today (UTC) for the site.", []string{"site"}, nil)
	quotaRemaining = prometheus.NewDesc("sitepush_bing_quota_remaining",
		"Bing URLs the site may still send today (UTC): the smaller of dailyQuota and Bing's own answer of today, less what went since; 0 once Bing refused for quota.", []string{"site"}, nil)
	lastGood = prometheus.NewDesc("sitepush_last_success_timestamp_seconds",
		"When the site's last run without failures (ok or budget_exhausted) ended, in Unix seconds.", []string{"site"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- quotaUsed
	ch <- quotaRemaining
	ch <- lastGood
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range c.current() {
		ch <- m
	}
}

// current returns the values read last, reading them again when they are older than stateTTL.
// A state that cannot be read is asked again only after stateTTL too; meanwhile the values read
// before stand.
func (c *stateCollector) current() []prometheus.Metric {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if !c.readAt.IsZero() && now.Sub(c.readAt) < stateTTL {
		return c.values
	}
	c.readAt = now
	values, err := c.read(now.UTC())
	if err != nil {
		c.logger.Error("metrics: reading the state; the values read before stand", "err", err)
		return c.values
	}
	c.values = values
	return values
}

// invalidate makes the next scrape read the state: a run ended.
func (c *stateCollector) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readAt = time.Time{}
}

// read reads, for every site, its Bing quota of today and its last good run.
func (c *stateCollector) read(now time.Time) ([]prometheus.Metric, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	today := now.Format(time.DateOnly)
	var out []prometheus.Metric
	for _, s := range c.sites() {
		if s.Bing.Enabled {
			d, err := c.state.QuotaDay(ctx, s.ID, today)
			if err != nil {
				return nil, err
			}
			left := bing.Today(s.Bing.DailyQuota, d).Left()
			out = append(out, prometheus.MustNewConstMetric(quotaUsed, prometheus.GaugeValue, float64(d.Used), s.ID),
				prometheus.MustNewConstMetric(quotaRemaining, prometheus.GaugeValue, float64(left), s.ID))
		}
		at, err := c.state.LastGoodRun(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		if !at.IsZero() {
			out = append(out, prometheus.MustNewConstMetric(lastGood, prometheus.GaugeValue, float64(at.UnixMilli())/1000, s.ID))
		}
	}
	return out, nil
}
