package metrics

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// newFleet is a world of the sites a to e, e with Bing, whose metrics show perSite sites. Every
// site ran once in this process, well, and sent 4 URLs to IndexNow.
func newFleet(t *testing.T, perSite int) *world {
	t.Helper()
	var sites []*config.Site
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		s := &config.Site{ID: id, Settings: config.Builtin()}
		s.Bing.Enabled = id == "e"
		sites = append(sites, s)
	}
	w := &world{t: t, st: storetest.Open(t), clock: t0}
	w.m = New(prometheus.NewRegistry(), perSite, func() []*config.Site { return sites }, w.st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	w.m.state.now = w.now
	for _, s := range sites {
		w.m.Request(s.ID, channel.Request{Channel: "indexnow", Endpoint: "https://engine.example/indexnow", URLs: 4, Status: 200, Accepted: true})
		w.m.RunFinished(w.goodRun(s.ID, t0.Add(-time.Hour)))
	}
	return w
}

// sent records n URLs of site sent to IndexNow at `at`: its activity.
func (w *world) sent(site string, n int, at time.Time) {
	w.t.Helper()
	due := make([]channel.Due, n)
	for i := range due {
		due[i].Hash = int64(i + 1)
	}
	if err := w.st.RecordOutcome(context.Background(), site, at, channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}); err != nil {
		w.t.Fatal(err)
	}
}

// sitesIn returns the distinct values of the site label in a scrape, sorted.
func sitesIn(text string) []string {
	set := map[string]bool{}
	for _, m := range regexp.MustCompile(`[{,]site="([^"]*)"`).FindAllStringSubmatch(text, -1) {
		set[m[1]] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// fleetTotal sums the samples of metric without a site label; -1 when there are none.
func fleetTotal(t *testing.T, text, metric string) float64 {
	t.Helper()
	total, found := 0.0, false
	for _, line := range strings.Split(text, "\n") {
		name, rest, _ := strings.Cut(line, " ")
		name, labels, _ := strings.Cut(name, "{")
		if name != metric || strings.Contains(labels, `site="`) {
			continue
		}
		v, err := strconv.ParseFloat(rest, 64)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		total, found = total+v, true
	}
	if !found {
		return -1
	}
	return total
}

// TestPerSiteShowsTheMostActiveSites checks that with perSite 2 only the two sites with the most
// URLs sent over today and yesterday have series, every series of theirs, ties broken by id; that
// the fleet's totals count every site; and that the sites shown follow the activity, a site shown
// again going on from its count.
func TestPerSiteShowsTheMostActiveSites(t *testing.T) {
	w := newFleet(t, 2)
	w.sent("c", 30, t0)
	w.sent("a", 10, t0.AddDate(0, 0, -1))
	w.sent("e", 10, t0)
	w.sent("d", 50, t0.AddDate(0, 0, -2)) // before yesterday: not counted

	text := w.scrape()
	if got := sitesIn(text); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("sites with series: %v; want a and c, the most active (a before e, as tied)\n%s", got, text)
	}
	for _, site := range []string{"a", "c"} {
		for _, metric := range []string{"sitepush_runs_total", "sitepush_url_attempts_total", "sitepush_run_duration_seconds_count",
			"sitepush_last_success_timestamp_seconds"} {
			if !regexp.MustCompile(`(?m)^` + metric + `\{[^}]*site="` + site + `"`).MatchString(text) {
				t.Errorf("site %s, shown, has no %s", site, metric)
			}
		}
	}
	for metric, want := range map[string]float64{"sitepush_fleet_runs_total": 5, "sitepush_fleet_url_attempts_total": 20,
		"sitepush_fleet_run_duration_seconds_count": 5, "sitepush_fleet_sitemap_errors_total": 0, "sitepush_fleet_feed_items_added_total": 0} {
		if got := fleetTotal(t, text, metric); got != want {
			t.Errorf("%s = %v, want %v: every site's", metric, got, want)
		}
	}

	w.sent("b", 100, t0)
	w.advance(stateTTL)
	if got := sitesIn(w.scrape()); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("after b sent 100 URLs, sites with series: %v; want b and c", got)
	}
	w.sent("a", 200, t0)
	w.advance(stateTTL)
	text = w.scrape()
	if got := sitesIn(text); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("after a sent 200 more URLs, sites with series: %v; want a and b", got)
	}
	if !strings.Contains(text, `sitepush_runs_total{site="a",status="ok",trigger="schedule"} 1`) {
		t.Errorf("a, shown again, does not go on from its count of runs:\n%s", text)
	}
}

// TestPerSiteAllAndNone checks the two ends: every site with its series, and none at all, the
// fleet's totals there either way.
func TestPerSiteAllAndNone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		perSite int
		want    []string
	}{
		{"all", math.MaxInt, []string{"a", "b", "c", "d", "e"}},
		{"more than the sites", 6, []string{"a", "b", "c", "d", "e"}},
		{"none", 0, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFleet(t, tc.perSite)
			w.st.ReserveQuota(context.Background(), "e", t0.Format(time.DateOnly), 3, 100)
			text := w.scrape()
			if got := sitesIn(text); !slices.Equal(got, tc.want) {
				t.Errorf("sites with series: %v, want %v", got, tc.want)
			}
			if got := fleetTotal(t, text, "sitepush_fleet_runs_total"); got != 5 {
				t.Errorf("sitepush_fleet_runs_total = %v, want 5", got)
			}
			wantQuota := ""
			if len(tc.want) > 0 {
				wantQuota = "3"
			}
			if got := value(text, "sitepush_bing_quota_used", "e"); got != wantQuota {
				t.Errorf("sitepush_bing_quota_used of e = %q, want %q", got, wantQuota)
			}
		})
	}
}
