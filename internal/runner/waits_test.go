package runner_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestWaitsAreRecorded checks what the record keeps of the waits engines asked for: the time
// throttled in all, overlapping waits counted once and a wait the run's end cut short only in
// part; one note per cause, whatever the number of waits; and the hooks told as waits start.
func TestWaitsAreRecorded(t *testing.T) {
	s := newSite(t, "")
	s.publish("/a", "/b")
	clock := &fakeClock{t: time.Date(2026, 11, 20, 6, 0, 0, 0, time.UTC)}
	r := runner.New(storetest.Open(t))
	r.Now = clock.now
	var told []string
	r.OnWait = func(site, ch, cause string, d time.Duration) {
		told = append(told, site+" "+ch+" "+cause+" "+d.String())
	}
	waiting := scripted{func(q *channel.Queue, rep channel.Reporter) error {
		rep.Waiting("bing", "HTTP 429 from https://a.example", 30*time.Second)
		clock.advance(30 * time.Second)
		rep.Waiting("bing", "HTTP 429 from https://a.example", 10*time.Second)
		rep.Waiting("bing", "HTTP 503 from https://b.example", 20*time.Second)
		clock.advance(5 * time.Second) // the run ends during both waits
		due, _ := q.Slice(t.Context(), 0, q.Len())
		return rep.Finished(channel.Outcome{Channel: "bing", URLs: due, Delivered: true})
	}}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{waiting}})
	wantNotes := []string{"bing: HTTP 429 from https://a.example, waited 35 s (2 waits)", "bing: HTTP 503 from https://b.example, waited 5 s"}
	if st := rec.Channels["bing"]; st.ThrottledMS != 35000 || !slices.Equal(rec.Notes, wantNotes) {
		t.Errorf("throttled %d ms, notes %q; want 35000 and %q", st.ThrottledMS, rec.Notes, wantNotes)
	}
	wantTold := []string{"s bing HTTP 429 from https://a.example 30s", "s bing HTTP 429 from https://a.example 10s", "s bing HTTP 503 from https://b.example 20s"}
	if !slices.Equal(told, wantTold) {
		t.Errorf("told %q, want %q", told, wantTold)
	}
}
