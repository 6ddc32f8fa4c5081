package metrics

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// BenchmarkColdScrape measures a scrape of /metrics with the state read again (a cold cache, as
// at the first scrape after a start and after every run that ended), with 10,000 sites that all
// ran in this process and 30 days of history in the state: SQLite in a temporary directory, or
// PostgreSQL when SITEPUSH_TEST_POSTGRES is set; with the default metrics.perSite, every site
// shown, and none. It reports the size of the answer.
func BenchmarkColdScrape(b *testing.B) {
	const nSites, days = 10_000, 30
	ctx := context.Background()
	state := storetest.State(b)
	st, err := store.Open(ctx, state)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	now := time.Now().UTC()
	seedFleet(b, storetest.Raw(b, state), nSites, days, now)

	sites := make([]*config.Site, nSites)
	for i := range sites {
		s := &config.Site{ID: fmt.Sprintf("site-%d", i), Settings: config.Builtin()}
		s.Bing.Enabled = i%3 == 0
		sites[i] = s
	}
	for _, perSite := range []struct {
		name  string
		sites int
	}{{"perSite=500", config.DefaultPerSite}, {"perSite=all", math.MaxInt}, {"perSite=none", 0}} {
		b.Run(perSite.name, func(b *testing.B) {
			m := New(prometheus.NewRegistry(), perSite.sites, func() []*config.Site { return sites }, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
			for _, s := range sites {
				m.Request(s.ID, channel.Request{Channel: "indexnow", Endpoint: "https://api.indexnow.org/indexnow", URLs: 20, Status: 200, Accepted: true})
				m.RunFinished(&model.Record{Site: s.ID, Trigger: "schedule", Status: model.StatusOK, StartedAt: now.Add(-time.Minute), FinishedAt: now})
			}
			size := 0
			for b.Loop() {
				m.state.invalidate()
				rec := httptest.NewRecorder()
				m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
				if rec.Code != 200 {
					b.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
				}
				size = rec.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes/scrape")
		})
	}
}

// seedFleet writes, in a few statements that read the same on both engines, days of history of
// n sites named site-0 to site-(n-1): a run a day (one in five failed), each day's IndexNow
// statistics (and Bing's for every third site, which has a Bing quota used today).
func seedFleet(b *testing.B, db *sql.DB, n, days int, now time.Time) {
	b.Helper()
	const sitesCTE = `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < $1 - 1) `
	exec := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			b.Fatalf("seeding: %v\n%s", err, q)
		}
	}
	for d := range days {
		start := now.AddDate(0, 0, -d).UnixMilli()
		exec(`INSERT INTO runs (site_id, trigger, started_at, finished_at, status) `+sitesCTE+
			`SELECT 'site-' || i, 'schedule', $2, $3, CASE WHEN (i + $4) % 5 = 0 THEN 'failed' ELSE 'ok' END FROM s`,
			n, start, start+60_000, d)
		day := now.AddDate(0, 0, -d).Format(time.DateOnly)
		for _, ch := range []string{"indexnow", "bing"} {
			exec(`INSERT INTO daily_stats (day, site_id, channel, endpoint, requests, total, successful, failed, last_success) `+sitesCTE+
				`SELECT $2, 'site-' || i, $3, '', 1, (i * 7919 + $4) % 100, (i * 7919 + $4) % 100, 0, $5 FROM s WHERE $3 = 'indexnow' OR i % 3 = 0`,
				n, day, ch, d*31, start)
		}
	}
	exec(`INSERT INTO bing_quota (site_id, day, used) `+sitesCTE+`SELECT 'site-' || i, $2, i % 100 FROM s WHERE i % 3 = 0`,
		n, now.Format(time.DateOnly))
}
