package scheduler

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// sitesOf loads sites with the given id → schedule.
func sitesOf(t testing.TB, schedules ...string) []*config.Site {
	t.Helper()
	doc := "sites:\n"
	for i := 0; i+1 < len(schedules); i += 2 {
		doc += fmt.Sprintf("  - {id: %s, sitemaps: [https://%s.example/s.xml], schedule: %q}\n", schedules[i], schedules[i], schedules[i+1])
	}
	c, err := config.Parse([]byte(doc), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []*config.Site
	for i := range c.Sites {
		out = append(out, &c.Sites[i])
	}
	return out
}

// firing records what a scheduler fires.
type firing struct {
	mu    sync.Mutex
	sites []*config.Site
	fired []string // "site@15:04"
}

func (f *firing) list() []*config.Site {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sites
}

func (f *firing) set(sites []*config.Site) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sites = sites
}

func (f *firing) fire(site *config.Site, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fired = append(f.fired, site.ID+"@"+at.Format("15:04"))
}

func (f *firing) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.fired
	f.fired = nil
	return out
}

func TestScheduler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The bubble's clock starts at 2000-01-01 00:00 UTC.
		f := &firing{sites: sitesOf(t, "every5", "*/5 * * * *", "hourly", "0 * * * *", "fresh", "0 * * * *")}
		last := map[string]time.Time{
			"hourly": time.Now().Add(-150 * time.Minute), // 21:30 yesterday: the 22:00, 23:00 and 00:00 runs were missed
			"every5": time.Now(),                         // it just ran: nothing missed
		}
		s := New(f.list, func(_ context.Context, site string) (time.Time, error) { return last[site], nil }, f.fire,
			slog.New(slog.NewTextHandler(io.Discard, nil)))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go s.Run(ctx)
		synctest.Wait()
		if got := f.take(); !slices.Equal(got, []string{"hourly@22:00"}) {
			t.Errorf("at start-up: %v; want the missed runs made up once, and a site that never ran left to its schedule", got)
		}
		time.Sleep(61 * time.Minute)
		synctest.Wait()
		want := []string{"every5@00:05", "every5@00:10", "every5@00:15", "every5@00:20", "every5@00:25", "every5@00:30",
			"every5@00:35", "every5@00:40", "every5@00:45", "every5@00:50", "every5@00:55", "hourly@01:00", "fresh@01:00", "every5@01:00"}
		if got := f.take(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Errorf("the first hour: %v", got)
		}

		// A schedule changed through the API counts from the change; a deleted site stops.
		f.set(sitesOf(t, "every5", "30 * * * *"))
		s.Wake()
		time.Sleep(60 * time.Minute)
		synctest.Wait()
		if got := f.take(); !slices.Equal(got, []string{"every5@01:30"}) {
			t.Errorf("after the change: %v", got)
		}
		cancel()
	})
}

// TestTheFirstReadAsksTheLastRunsOnce: with LastStartedAll, the first read of the sites asks when
// each last ran in one read, not one a site (10,000 queries at the start of a fleet), and makes up
// the same missed runs; a site created later is asked about alone.
func TestTheFirstReadAsksTheLastRunsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &firing{sites: sitesOf(t, "every5", "*/5 * * * *", "hourly", "0 * * * *", "fresh", "0 * * * *")}
		last := map[string]time.Time{"hourly": time.Now().Add(-150 * time.Minute), "every5": time.Now()}
		var one, all atomic.Int64
		s := New(f.list, func(_ context.Context, site string) (time.Time, error) {
			one.Add(1)
			return last[site], nil
		}, f.fire, slog.New(slog.NewTextHandler(io.Discard, nil)))
		s.LastStartedAll = func(context.Context) (map[string]time.Time, error) {
			all.Add(1)
			return maps.Clone(last), nil
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go s.Run(ctx)
		synctest.Wait()
		if got := f.take(); !slices.Equal(got, []string{"hourly@22:00"}) || all.Load() != 1 || one.Load() != 0 {
			t.Errorf("at start-up: fired %v, %d reads of all the last runs and %d of one; want hourly@22:00 made up "+
				"after one read of all", got, all.Load(), one.Load())
		}
		last["late"] = time.Now().Add(-2 * time.Hour)
		f.set(append(f.list(), sitesOf(t, "late", "0 * * * *")...))
		s.Wake()
		synctest.Wait()
		if got := f.take(); !slices.Equal(got, []string{"late@23:00"}) || all.Load() != 1 || one.Load() != 1 {
			t.Errorf("a site created: fired %v, %d reads of all and %d of one; want late@23:00 after a read of its own",
				got, all.Load(), one.Load())
		}
		cancel()
	})
}

// TestAReadCostsOnlyTheChangedSites: reading the sites again (each site created through the API
// wakes the scheduler, and it reads them every Refresh) computes fire times for the sites created
// or changed since the last read only, not for all of them.
func TestAReadCostsOnlyTheChangedSites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var pairs []string
		for i := range 1000 {
			pairs = append(pairs, fmt.Sprintf("s%03d", i), "0 * * * *")
		}
		f := &firing{sites: sitesOf(t, pairs...)}
		s := New(f.list, func(context.Context, string) (time.Time, error) { return time.Time{}, nil }, f.fire,
			slog.New(slog.NewTextHandler(io.Discard, nil)))
		next, count := s.next, atomic.Int64{}
		s.next = func(site *config.Site, t time.Time) time.Time {
			count.Add(1)
			return next(site, t)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go s.Run(ctx)
		synctest.Wait()
		if count.Load() != 1000 {
			t.Fatalf("at start-up: %d fire times computed for 1,000 sites", count.Load())
		}
		for range 5 {
			s.Wake()
			synctest.Wait()
		}
		f.set(sitesOf(t, pairs...)) // read again from the store: the same schedules, new values
		s.Wake()
		time.Sleep(s.Refresh)
		synctest.Wait()
		if count.Load() != 1000 {
			t.Errorf("after 6 wakes and a refresh with no site changed: %d more fire times computed, want 0", count.Load()-1000)
		}

		changed := append(sitesOf(t, "s000", "30 * * * *", "new", "0 * * * *"), f.list()[2:]...) // s001 deleted
		f.set(changed)
		s.Wake()
		synctest.Wait()
		if count.Load() != 1002 {
			t.Errorf("one site changed, one created, one deleted: %d fire times computed, want 2", count.Load()-1000)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		fired := f.take()
		if len(fired) != 1000 || !slices.Contains(fired, "s000@00:30") || !slices.Contains(fired, "new@01:00") || slices.Contains(fired, "s001@01:00") {
			t.Errorf("the hour fired %d sites (s000@00:30, new@01:00 and not s001 among them: %v, %v, %v)", len(fired),
				slices.Contains(fired, "s000@00:30"), slices.Contains(fired, "new@01:00"), !slices.Contains(fired, "s001@01:00"))
		}
		if count.Load() != 2002 {
			t.Errorf("1,000 sites fired once each: %d fire times computed, want 1,000", count.Load()-1002)
		}
		cancel()
	})
}
