package scheduler

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// fakeRuns is a pool's run function that counts the runs going, records them in the order they
// started, and holds each until its site is let go (or for ever, when hold is set).
type fakeRuns struct {
	now, most atomic.Int64
	mu        sync.Mutex
	started   []string // "site@15:04 try N"
	startedAt []time.Time
	hold      map[string]chan struct{}
	busyUntil map[string]int // a site answers busy to its tries before this one
	length    time.Duration  // how long a run not held takes
}

func newFakeRuns() *fakeRuns {
	return &fakeRuns{hold: map[string]chan struct{}{}, busyUntil: map[string]int{}}
}

func (f *fakeRuns) run(site *config.Site, at time.Time, try int) bool {
	n := f.now.Add(1)
	defer f.now.Add(-1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	f.mu.Lock()
	f.started = append(f.started, fmt.Sprintf("%s@%s try %d", site.ID, at.Format("15:04"), try))
	f.startedAt = append(f.startedAt, time.Now())
	hold, busy := f.hold[site.ID], try < f.busyUntil[site.ID]
	f.mu.Unlock()
	if busy {
		return true
	}
	if hold != nil {
		<-hold
	}
	time.Sleep(f.length)
	return false
}

func (f *fakeRuns) holdSite(id string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hold[id] = make(chan struct{})
	return f.hold[id]
}

func (f *fakeRuns) order() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.started)
}

func siteNamed(id string) *config.Site { return &config.Site{ID: id} }

// fireTime is a fire time on the bubble's first day, 2000-01-01.
func fireTime(hhmm string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", "2000-01-01 "+hhmm)
	if err != nil {
		panic(err)
	}
	return t
}

func TestPoolRunsAtMostSizeAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeRuns()
		f.length = 200 * time.Millisecond
		p := newPool(8, SlotTurn, f.run)
		start := time.Now()
		for i := range 300 {
			p.add(siteNamed(fmt.Sprint("s", i)), fireTime("00:00"))
		}
		synctest.Wait()
		if got := p.queued(); got != 300-8 {
			t.Errorf("queued after the burst: %d, want %d", got, 300-8)
		}
		p.wait()
		if most := f.most.Load(); most != 8 {
			t.Errorf("at most %d runs at once, want 8", most)
		}
		// 300 runs of 200 ms, 8 at a time: 38 rounds, without a gap between them.
		if took := time.Since(start); took != 38*200*time.Millisecond {
			t.Errorf("the burst took %v", took)
		}
		if n := len(f.order()); n != 300 {
			t.Errorf("%d runs, want 300", n)
		}
	})
}

// TestPoolHasNoGoroutinePerQueuedSite: a burst of due sites is entries in a queue, not parked
// goroutines.
func TestPoolHasNoGoroutinePerQueuedSite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		p := newPool(4, SlotTurn, func(*config.Site, time.Time, int) bool {
			<-release
			return false
		})
		before := runtime.NumGoroutine()
		for i := range 1000 {
			p.add(siteNamed(fmt.Sprint("s", i)), fireTime("00:00"))
		}
		synctest.Wait()
		if grew := runtime.NumGoroutine() - before; grew > 4 {
			t.Errorf("1,000 sites queued, 4 running: %d more goroutines, want 4 at most", grew)
		}
		close(release)
		p.wait()
		synctest.Wait()
		if got := runtime.NumGoroutine(); got > before {
			t.Errorf("%d goroutines after the queue emptied, %d before", got, before)
		}
	})
}

func TestPoolTakesTheOldestFireTimeFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeRuns()
		blocker := f.holdSite("blocker")
		p := newPool(1, SlotTurn, f.run)
		p.add(siteNamed("blocker"), fireTime("00:00"))
		synctest.Wait()
		for _, s := range []struct{ id, at string }{{"e", "00:05"}, {"a", "00:01"}, {"d", "00:03"}, {"b", "00:02"}, {"c", "00:02"}} {
			p.add(siteNamed(s.id), fireTime(s.at))
		}
		close(blocker)
		p.wait()
		want := []string{"blocker@00:00 try 1", "a@00:01 try 1", "b@00:02 try 1", "c@00:02 try 1", "d@00:03 try 1", "e@00:05 try 1"}
		if got := f.order(); !slices.Equal(got, want) {
			t.Errorf("runs in the order %v, want the oldest fire time first, then the order they came in: %v", got, want)
		}
	})
}

func TestPoolQueuesASiteOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeRuns()
		blocker := f.holdSite("blocker")
		p := newPool(1, SlotTurn, f.run)
		p.add(siteNamed("blocker"), fireTime("00:00"))
		synctest.Wait()
		p.add(siteNamed("a"), fireTime("00:05"))
		p.add(siteNamed("a"), fireTime("00:01")) // a make-up of a missed fire time, after the tick
		p.add(siteNamed("a"), fireTime("00:03"))
		p.add(siteNamed("blocker"), fireTime("00:04")) // running: the run going stands for it
		if got := p.queued(); got != 1 {
			t.Errorf("queued: %d, want 1", got)
		}
		close(blocker)
		p.wait()
		if got, want := f.order(), []string{"blocker@00:00 try 1", "a@00:01 try 1"}; !slices.Equal(got, want) {
			t.Errorf("runs %v, want %v: a site queued three times runs once, for its oldest fire time", got, want)
		}
	})
}

// TestPoolTriesABusySiteAgain: a site busy elsewhere is tried again busyTries times, busyWait
// apart, without holding a slot meanwhile.
func TestPoolTriesABusySiteAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeRuns()
		f.busyUntil["busy"] = busyTries
		p := newPool(1, SlotTurn, f.run)
		p.add(siteNamed("busy"), fireTime("00:00"))
		synctest.Wait()
		p.add(siteNamed("other"), fireTime("00:01"))
		p.add(siteNamed("busy"), fireTime("00:02")) // waiting to be tried again: not queued twice
		time.Sleep(busyTries * busyWait)            // wait waits for the runs going, not for those to be tried again
		p.wait()
		want := []string{"busy@00:00 try 1", "other@00:01 try 1", "busy@00:00 try 2", "busy@00:00 try 3"}
		if got := f.order(); !slices.Equal(got, want) {
			t.Errorf("runs %v, want %v", got, want)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if waited := f.startedAt[3].Sub(f.startedAt[0]); waited != (busyTries-1)*busyWait {
			t.Errorf("the tries were %v apart from first to last, want %v", waited, (busyTries-1)*busyWait)
		}
	})
}

// TestPoolTurn: a run past its turn gives its slot up, so the next due site starts beside it; at
// most as many runs as slots do so, so that no more than twice the slots go at once.
func TestPoolTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeRuns()
		holds := map[string]chan struct{}{}
		for _, id := range []string{"a", "b", "c", "d", "e"} {
			holds[id] = f.holdSite(id)
		}
		release := func(ids ...string) {
			for _, id := range ids {
				close(holds[id])
				delete(holds, id)
			}
		}
		defer func() { // a failed check leaves no run going: the bubble ends with its goroutines
			for _, h := range holds {
				close(h)
			}
		}()
		p := newPool(2, SlotTurn, f.run)
		for _, id := range []string{"a", "b", "c", "d", "e", "quick"} {
			p.add(siteNamed(id), fireTime("00:00"))
		}
		synctest.Wait()
		if n := f.now.Load(); n != 2 {
			t.Fatalf("at the start: %d runs, want 2", n)
		}
		time.Sleep(SlotTurn)
		synctest.Wait()
		if n := f.now.Load(); n != 4 {
			t.Fatalf("after a turn: %d runs, want 4: a and b gave their slots to c and d", n)
		}
		time.Sleep(10 * SlotTurn)
		synctest.Wait()
		if n := f.now.Load(); n != 4 {
			t.Fatalf("after more turns: %d runs, want 4: two past their turn already, c and d keep their slots", n)
		}
		release("a")
		time.Sleep(SlotTurn)
		synctest.Wait()
		if n := f.now.Load(); n != 4 {
			t.Fatalf("a ended: %d runs, want 4: c or d gave its slot to e within a turn", n)
		}
		release("b", "c", "d", "e")
		p.wait()
		if most, n := f.most.Load(), len(f.order()); most != 4 || n != 6 {
			t.Errorf("%d runs, at most %d at once; want 6, 4", n, most)
		}
	})
}

func TestPoolStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeRuns()
		release := make(chan struct{})
		p := newPool(2, SlotTurn, func(s *config.Site, at time.Time, try int) bool {
			f.run(s, at, try)
			<-release // the runs' context, ended by Shutdown
			return false
		})
		for i := range 10 {
			p.add(siteNamed(fmt.Sprint("s", i)), fireTime("00:00"))
		}
		synctest.Wait()
		p.stop()
		p.add(siteNamed("late"), fireTime("00:01"))
		if got := p.queued(); got != 0 {
			t.Errorf("queued after stop: %d, want 0", got)
		}
		close(release)
		p.wait()
		if got := f.order(); len(got) != 2 {
			t.Errorf("runs %v: want the 2 going, none of the queue", got)
		}
	})
}
