package metrics

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/store"
)

// stateTTL is how long what the state says is kept for scrapes: a burst of scrapes, from one
// Prometheus or many clients, reads the state once.
const stateTTL = 10 * time.Second

// activityDays is how many UTC days, today's included, a site's activity counts: two, so that the
// last run of a site that runs daily is always among them.
const activityDays = 2

// stateReader reads, at scrape time, which sites are shown and what the state says of them: their
// Bing quota of the day and their last good run. It reads at most once per stateTTL, and sooner
// after a run of this process ended, in at most three queries whatever the number of sites; every
// scrape in between is answered from memory.
type stateReader struct {
	perSite int
	sites   func() []*config.Site
	state   *store.Store
	logger  *slog.Logger
	now     func() time.Time

	// mu is held while the state is read, so that concurrent scrapes wait for one read.
	mu     sync.Mutex
	readAt time.Time // zero: read at the next scrape
	shown  []string
	gauges []prometheus.Metric
}

var (
	quotaUsed = prometheus.NewDesc("sitepush_bing_quota_used",
		"Bing URLs reserved or sent today (UTC) for the site.", []string{"site"}, nil)
	quotaRemaining = prometheus.NewDesc("sitepush_bing_quota_remaining",
		"Bing URLs the site may still send today (UTC): the smaller of dailyQuota and Bing's own answer of today, less what went since; 0 once Bing refused for quota.", []string{"site"}, nil)
	lastGood = prometheus.NewDesc("sitepush_last_success_timestamp_seconds",
		"When the site's last run without failures (ok or budget_exhausted) ended, in Unix seconds.", []string{"site"}, nil)
)

// current returns the sites shown and their gauges as read last, reading them again when they
// are older than stateTTL. A state that cannot be read is asked again only after stateTTL too;
// meanwhile the values read before stand. With perSite 0 no site is shown, and nothing is read.
func (r *stateReader) current() ([]string, []prometheus.Metric) {
	if r.perSite == 0 {
		return nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if !r.readAt.IsZero() && now.Sub(r.readAt) < stateTTL {
		return r.shown, r.gauges
	}
	r.readAt = now
	shown, gauges, err := r.read(now.UTC())
	if err != nil {
		r.logger.Error("metrics: reading the state; the values read before stand", "err", err)
		return r.shown, r.gauges
	}
	r.shown, r.gauges = shown, gauges
	return shown, gauges
}

// invalidate makes the next scrape read the state: a run ended.
func (r *stateReader) invalidate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.readAt = time.Time{}
}

// read chooses the sites shown and reads their Bing quota of today and their last good run.
func (r *stateReader) read(now time.Time) ([]string, []prometheus.Metric, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sites, err := r.choose(ctx, now)
	if err != nil {
		return nil, nil, err
	}
	ids, withBing := make([]string, len(sites)), []string{}
	for i, s := range sites {
		ids[i] = s.ID
		if s.Bing.Enabled {
			withBing = append(withBing, s.ID)
		}
	}
	last, err := r.state.LastGoodRuns(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	quotas, err := r.state.QuotaDays(ctx, withBing, now.Format(time.DateOnly))
	if err != nil {
		return nil, nil, err
	}
	var out []prometheus.Metric
	for _, s := range sites {
		if s.Bing.Enabled {
			d := quotas[s.ID]
			left := bing.Today(s, d).Left()
			out = append(out, prometheus.MustNewConstMetric(quotaUsed, prometheus.GaugeValue, float64(d.Used), s.ID),
				prometheus.MustNewConstMetric(quotaRemaining, prometheus.GaugeValue, float64(left), s.ID))
		}
		if at, ok := last[s.ID]; ok {
			out = append(out, prometheus.MustNewConstMetric(lastGood, prometheus.GaugeValue, float64(at.UnixMilli())/1000, s.ID))
		}
	}
	return ids, out, nil
}

// choose returns the sites shown: every site when there are perSite or fewer, else the perSite
// sites with the most activity — the URLs their channels attempted over today and yesterday
// (UTC), read from the state, so that every instance shows the same sites — ties broken by id, so
// that the sites shown stay the same from one scrape to the next while nothing happens.
func (r *stateReader) choose(ctx context.Context, now time.Time) ([]*config.Site, error) {
	sites := r.sites()
	if len(sites) <= r.perSite {
		return sites, nil
	}
	activity, err := r.state.Activity(ctx, now.AddDate(0, 0, 1-activityDays))
	if err != nil {
		return nil, err
	}
	sites = slices.Clone(sites)
	slices.SortFunc(sites, func(a, b *config.Site) int {
		return cmp.Or(cmp.Compare(activity[b.ID], activity[a.ID]), strings.Compare(a.ID, b.ID))
	})
	return sites[:r.perSite], nil
}
