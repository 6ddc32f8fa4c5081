package scheduler

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
)

var (
	burstSites       = flag.Int("burst.sites", 400, "BenchmarkBurst: the sites due at once")
	burstConcurrency = flag.Int("burst.concurrency", 4, "BenchmarkBurst: the runs at once")
	burstRun         = flag.Duration("burst.run", 150*time.Millisecond, "BenchmarkBurst: how long each run's channel delivers")
)

// slow is a channel that answers after a while, like an engine that takes its time.
type slow struct {
	wait  time.Duration
	start func()
}

func (s slow) Name() string { return "indexnow" }

func (s slow) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	s.start()
	time.Sleep(s.wait)
	return rep.Finished(channel.Outcome{Channel: "indexnow", URLs: q.Refs(0, q.Len()), Delivered: true})
}

// BenchmarkBurst runs a burst of sites due in the same minute through real runs on SQLite and
// reports how fast it goes, how late the last run started, and the goroutines at the peak:
//
//	go test -run '^$' -bench Burst ./internal/scheduler -burst.sites 5000 -burst.concurrency 4
func BenchmarkBurst(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		runs, sites, _, done := burst(b, *burstSites, *burstConcurrency)
		var mu sync.Mutex
		var last time.Time
		var peak atomic.Int64
		runs.channels = func(*config.Site, string) []channel.Channel {
			return []channel.Channel{slow{wait: *burstRun, start: func() {
				mu.Lock()
				last = time.Now()
				mu.Unlock()
				if g := int64(runtime.NumGoroutine()); g > peak.Load() {
					peak.Store(g)
				}
			}}}
		}
		base := runtime.NumGoroutine()
		b.StartTimer()
		at := time.Now()
		for _, site := range sites {
			runs.Scheduled(site, at)
		}
		for len(done.all()) < len(sites) {
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(at)
		b.ReportMetric(float64(len(sites))/took.Seconds(), "runs/s")
		b.ReportMetric(last.Sub(at).Seconds(), "s-last-start-late")
		b.ReportMetric(float64(peak.Load()-int64(base)), "goroutines-added")
	}
}

// BenchmarkRead is what a Wake costs the scheduler (each site created through the API wakes it)
// with 5,000 sites, none changed: a map lookup each, no fire time computed.
func BenchmarkRead(b *testing.B) {
	var pairs []string
	for i := range 5000 {
		pairs = append(pairs, fmt.Sprintf("s%04d", i), fmt.Sprintf("%d * * * *", i%60))
	}
	sites := sitesOf(b, pairs...)
	s := New(func() []*config.Site { return sites }, func(context.Context, string) (time.Time, error) { return time.Time{}, nil },
		func(*config.Site, time.Time) {}, slog.New(slog.DiscardHandler))
	p := newPlan()
	now := time.Now().UTC()
	s.follow(b.Context(), p, now)
	for b.Loop() {
		s.follow(b.Context(), p, now)
	}
}
