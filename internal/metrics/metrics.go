// Package metrics exposes sitepush serve's Prometheus metrics, on a registry passed in: what runs
// did, as they do it, and what the state says at scrape time (Bing quotas, the last good run of
// each site), so that every instance sharing a database reports the same state.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
)

// State is what the scrape-time metrics read.
type State interface {
	QuotaDays(ctx context.Context, day string) (map[string]store.QuotaDay, error)
	LastGoodRuns(ctx context.Context) (map[string]time.Time, error)
}

// Metrics are sitepush's collectors.
type Metrics struct {
	reg            *prometheus.Registry
	runs           *prometheus.CounterVec
	runSeconds     *prometheus.HistogramVec
	urls           *prometheus.CounterVec
	requestSeconds *prometheus.HistogramVec
	feedItems      *prometheus.CounterVec
	sitemapErrors  *prometheus.CounterVec
}

// New registers sitepush's metrics, the Go runtime's and the process's on reg. sites and state
// feed the metrics read at scrape time.
func New(reg *prometheus.Registry, sites func() []*config.Site, state State, logger *slog.Logger) *Metrics {
	m := &Metrics{
		reg: reg,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_runs_total",
			Help: "Runs that ended, by site, trigger (schedule, manual) and status (ok, partial, failed, budget_exhausted)."},
			[]string{"site", "trigger", "status"}),
		runSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sitepush_run_duration_seconds",
			Help: "How long runs took, by site.", Buckets: []float64{0.1, 0.5, 1, 5, 15, 60, 300, 900, 1800}},
			[]string{"site"}),
		urls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_urls_total",
			Help: "URLs sent to engines, by site, channel, endpoint and outcome (submitted: the endpoint accepted them; failed)."},
			[]string{"site", "channel", "endpoint", "outcome"}),
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sitepush_engine_request_duration_seconds",
			Help: "Latency of requests to engines, by channel and endpoint.", Buckets: prometheus.ExponentialBuckets(0.025, 2, 10)},
			[]string{"channel", "endpoint"}),
		feedItems: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_feed_items_added_total",
			Help: "New pages added to a site's feed."}, []string{"site"}),
		sitemapErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sitepush_sitemap_errors_total",
			Help: "Sitemaps that could not be read in a run, by site."}, []string{"site"}),
	}
	reg.MustRegister(m.runs, m.runSeconds, m.urls, m.requestSeconds, m.feedItems, m.sitemapErrors,
		&stateCollector{sites: sites, state: state, logger: logger},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Request counts one request to an engine; it is the runner's OnRequest.
func (m *Metrics) Request(site string, r runner.Request) {
	outcome := "failed"
	if r.Accepted {
		outcome = "submitted"
	}
	m.urls.WithLabelValues(site, r.Channel, r.Endpoint, outcome).Add(float64(r.URLs))
	m.requestSeconds.WithLabelValues(r.Channel, r.Endpoint).Observe(r.Latency.Seconds())
}

// RunFinished counts a run that ended.
func (m *Metrics) RunFinished(rec *runner.Record) {
	m.runs.WithLabelValues(rec.Site, rec.Trigger, rec.Status).Inc()
	m.runSeconds.WithLabelValues(rec.Site).Observe(rec.FinishedAt.Sub(rec.StartedAt).Seconds())
	if rec.Sitemaps.Failed > 0 {
		m.sitemapErrors.WithLabelValues(rec.Site).Add(float64(rec.Sitemaps.Failed))
	}
	if st, ok := rec.Channels["feed"]; ok && st.Submitted > 0 {
		m.feedItems.WithLabelValues(rec.Site).Add(float64(st.Submitted))
	}
}

// stateCollector reads, at each scrape, the Bing quota of the day and each site's last good run.
type stateCollector struct {
	sites  func() []*config.Site
	state  State
	logger *slog.Logger
}

var (
	quotaUsed = prometheus.NewDesc("sitepush_bing_quota_used",
		"Bing URLs reserved or sent today (UTC) for the site.", []string{"site"}, nil)
	quotaRemaining = prometheus.NewDesc("sitepush_bing_quota_remaining",
		"Bing URLs the site may still send today (UTC): 0 once Bing refused for quota.", []string{"site"}, nil)
	lastGood = prometheus.NewDesc("sitepush_last_success_timestamp_seconds",
		"When the site's last run without failures (ok or budget_exhausted) ended, in Unix seconds.", []string{"site"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- quotaUsed
	ch <- quotaRemaining
	ch <- lastGood
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	quotas, err := c.state.QuotaDays(ctx, time.Now().UTC().Format(time.DateOnly))
	if err != nil {
		c.logger.Error("metrics: reading the Bing quotas", "err", err)
	}
	good, err := c.state.LastGoodRuns(ctx)
	if err != nil {
		c.logger.Error("metrics: reading the last runs", "err", err)
	}
	for _, s := range c.sites() {
		if s.Bing.Enabled && quotas != nil {
			q := quotas[s.ID]
			ch <- prometheus.MustNewConstMetric(quotaUsed, prometheus.GaugeValue, float64(q.Used), s.ID)
			ch <- prometheus.MustNewConstMetric(quotaRemaining, prometheus.GaugeValue, float64(q.Left(s.Bing.DailyQuota)), s.ID)
		}
		if at, ok := good[s.ID]; ok {
			ch <- prometheus.MustNewConstMetric(lastGood, prometheus.GaugeValue, float64(at.UnixMilli())/1000, s.ID)
		}
	}
}
