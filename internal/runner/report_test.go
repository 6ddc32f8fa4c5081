package runner_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// scripted is a channel whose delivery the test writes: what it reports decides the run.
type scripted struct {
	deliver func(q *channel.Queue, rep channel.Reporter) error
}

func (c scripted) Name() string { return "bing" }

func (c scripted) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	return c.deliver(q, rep)
}

// TestWhatAChannelReportsDecidesTheRun checks how the run counts what a channel tells it: a
// failure of the channel as a whole fails the run in part, and URLs held back by a quota are no
// failure and not left over.
func TestWhatAChannelReportsDecidesTheRun(t *testing.T) {
	s := newSite(t, "")
	s.publish("/a", "/b", "/c")
	r := runner.New(storetest.Open(t))
	failed := scripted{func(q *channel.Queue, rep channel.Reporter) error {
		rep.Failed("bing", "the API key was rejected")
		return nil
	}}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{failed}})
	if st := rec.Channels["bing"]; rec.Status != model.StatusPartial || st.Failed != 0 || st.Left != 3 ||
		!slices.Contains(rec.Errors, "bing: the API key was rejected") {
		t.Errorf("a channel that failed as a whole: %s, %+v, errors %q", rec.Status, st, rec.Errors)
	}

	held := scripted{func(q *channel.Queue, rep channel.Reporter) error {
		rep.HeldBack("bing", q.Len(), "the daily quota is spent until 00:00 UTC")
		return nil
	}}
	rec = run(t, r, s, runner.Options{Channels: []channel.Channel{held}})
	if st := rec.Channels["bing"]; rec.Status != model.StatusOK || st.Held != 3 || st.Left != 0 || st.Failed != 0 ||
		!slices.Equal(rec.Notes, []string{"bing: the daily quota is spent until 00:00 UTC: 3 due URLs held back, for the first run after that"}) {
		t.Errorf("URLs held back by a quota: %s, %+v, notes %q", rec.Status, st, rec.Notes)
	}
	// Chosen URLs a quota holds back stay due for no run: the note says to submit them again.
	rec = run(t, r, s, runner.Options{Channels: []channel.Channel{held}, URLs: urls("/a"), Force: true})
	want := "bing: the daily quota is spent until 00:00 UTC: 1 chosen URL held back, and kept for no run: submit again after that " +
		"(a run of the sitemaps sends those of them it finds due: new, changed or failed)"
	if st := rec.Channels["bing"]; rec.Status != model.StatusOK || st.Held != 1 || !slices.Equal(rec.Notes, []string{want}) {
		t.Errorf("chosen URLs held back by a quota: %s, %+v, notes %q; want %q", rec.Status, st, rec.Notes, want)
	}
}

// TestARejectedURLWaitsUntilItChanges checks that a URL a channel refused for good is not due
// again until its lastmod changes.
func TestARejectedURLWaitsUntilItChanges(t *testing.T) {
	s := newSite(t, "")
	s.publish("/bad 2026-01-01", "/good 2026-01-01")
	r := runner.New(storetest.Open(t))
	var seen [][]string
	reject := scripted{func(q *channel.Queue, rep channel.Reporter) error {
		due, err := q.Slice(context.Background(), 0, q.Len())
		if err != nil {
			return err
		}
		var got []string
		for _, d := range due {
			got = append(got, d.URL)
			o := channel.Outcome{Channel: "bing", URLs: []channel.Due{d}, Delivered: true}
			if d.URL == urls("/bad")[0] {
				o = channel.Outcome{Channel: "bing", URLs: []channel.Due{d}, Err: "InvalidUrl", Rejected: true}
			}
			if err := rep.Finished(o); err != nil {
				return err
			}
		}
		slices.Sort(got)
		seen = append(seen, got)
		return nil
	}}
	opt := runner.Options{Channels: []channel.Channel{reject}}
	run(t, r, s, opt)
	if rec := run(t, r, s, opt); rec.Channels["bing"].Due != 0 {
		t.Errorf("the run after the refusal: %d due, want none", rec.Channels["bing"].Due)
	}
	s.publish("/bad 2026-02-01", "/good 2026-01-01")
	run(t, r, s, opt)
	// A channel is not called when nothing is due on it: two deliveries in three runs.
	want := [][]string{urls("/bad", "/good"), urls("/bad")}
	if len(seen) != 2 || !slices.Equal(seen[0], want[0]) || !slices.Equal(seen[1], want[1]) {
		t.Errorf("due in the runs that delivered: %q; want %q", seen, want)
	}
}
