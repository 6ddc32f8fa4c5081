package runner_test

import (
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// builds runs a site checked by content hour after hour, as builds of b publish it.
type builds struct {
	t    *testing.T
	b    *builtSite
	s    *site
	open func(time.Time) runner.State
	at   time.Time
	all  []string
}

func newBuilds(t *testing.T, open func(time.Time) runner.State, extra string, pages int) *builds {
	return &builds{t: t, b: newBuiltSite(), s: newSite(t, extra), open: open, at: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), all: paths(pages)}
}

// publish makes build n, stamped, with edits.
func (w *builds) publish(n int, edits map[string]int) {
	w.s.publish(w.b.publish(n, w.all, true, edits)...)
}

// run runs the site an hour after the run before, its content checks fetching from the build.
func (w *builds) run(opt runner.Options) *model.Record {
	w.t.Helper()
	w.at = w.at.Add(time.Hour)
	return run(w.t, contentRunner(w.open, w.at, w.b), w.s, opt)
}

// TestAQuotaGetsOnlyWhatChanged: a build of a stamped site edits 3 pages while Bing has 1 URL
// of quota left. IndexNow gets the 3 at once; Bing gets 1 that run and the 2 others on the runs
// after (their content, changed but not sent to Bing, stays due on Bing); the 17 pages whose
// content is the same as sent are never given to Bing, whatever quota it has.
func TestAQuotaGetsOnlyWhatChanged(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			w := newBuilds(t, open, "", 20)
			in, bing := &fakeChannel{name: "indexnow", batch: 100}, &quota{left: 20}
			opt := runner.Options{Channels: []channel.Channel{in, bing}}
			w.publish(0, nil)
			w.run(opt)
			if gotIn, gotBing := in.take(), bing.take(); len(gotIn) != 20 || len(gotBing) != 20 {
				t.Fatalf("the first run sent %d to IndexNow and %d to Bing; want the 20 new to each", len(gotIn), len(gotBing))
			}
			edited := urls("/p2", "/p5", "/p9")
			w.publish(1, map[string]int{"/p2": 1, "/p5": 1, "/p9": 1})
			bing.left = 1
			rec := w.run(opt)
			if got := in.take(); !slices.Equal(got, edited) {
				t.Fatalf("the build's run sent %v to IndexNow, want the 3 edited %v (changes %+v)", got, edited, rec.Changes)
			}
			if st := rec.Channels["bing"]; st == nil || st.Due != 3 {
				t.Errorf("Bing's stats %+v; want the 3 edited due, no other", st)
			}
			got := bing.take()
			for range 2 {
				bing.left = 1
				w.run(opt)
				if sent := in.take(); len(sent) != 0 {
					t.Errorf("a run after the build sent %v to IndexNow again", sent)
				}
				got = append(got, bing.take()...)
			}
			if slices.Sort(got); !slices.Equal(got, edited) {
				t.Fatalf("Bing got %v in 3 runs of 1 URL of quota; want the 3 edited, one a run", got)
			}
			bing.left = 100
			w.run(opt)
			if sent := bing.take(); len(sent) != 0 || bing.left != 100 {
				t.Errorf("with quota to spare, Bing got %v; want none: their content is the same as sent", sent)
			}
		})
	}
}

// TestAnUpgradeResendsNothing: a site run before content checks (Runner.Pages nil) sends what
// its lastmods say; the first run that checks a build whose stamp moved, nothing edited, records
// each page's content and sends nothing (changes count from there); an edit after is sent.
func TestAnUpgradeResendsNothing(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			w := newBuilds(t, open, "", 20)
			in := &fakeChannel{name: "indexnow", batch: 100}
			opt := runner.Options{Channels: []channel.Channel{in}}
			for n := range 2 { // before the upgrade: every build sends every page
				w.publish(n, nil)
				w.at = w.at.Add(time.Hour)
				r := runner.New(w.open(w.at))
				r.Now = func() time.Time { return w.at }
				r.Client = &http.Client{Transport: w.b}
				rec := run(t, r, w.s, opt)
				if got := in.take(); len(got) != 20 || rec.Changes != nil || len(w.b.fetched()) != 0 {
					t.Fatalf("build %d without content checks: sent %d, changes %+v, fetched %v; want 20 sent by lastmod, nothing checked",
						n, len(got), rec.Changes, w.b.fetched())
				}
			}
			w.publish(2, nil)
			rec := w.run(opt)
			if got := in.take(); len(got) != 0 || rec.Changes == nil || rec.Changes.First != 20 || rec.Changes.Changed != 0 {
				t.Fatalf("the first run with content checks, the stamp moved and nothing edited: sent %v, changes %+v; want nothing sent, 20 first checks",
					got, rec.Changes)
			}
			w.publish(3, map[string]int{"/p7": 1})
			rec = w.run(opt)
			if got := in.take(); !slices.Equal(got, urls("/p7")) || rec.Changes.Changed != 1 || rec.Changes.Same != 19 {
				t.Fatalf("a build that edited /p7: sent %v, changes %+v; want /p7, 1 changed and 19 the same", got, rec.Changes)
			}
		})
	}
}

// TestSuspectsBeyondTheChecksWait: with checksPerRun 5 and a build that moved the stamp of 20
// pages and edited 2, each run checks 5 of them; the suspects it had no checks left for are not
// sent and stay first in line (the record's left), and within 4 runs the 2 edited are sent,
// once, and nothing else is.
func TestSuspectsBeyondTheChecksWait(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			w := newBuilds(t, open, "    changes: {checksPerRun: 5}\n", 20)
			in := &fakeChannel{name: "indexnow", batch: 100}
			opt := runner.Options{Channels: []channel.Channel{in}}
			w.publish(0, nil)
			checked := map[string]int{}
			runChecking := func() *model.Record {
				rec := w.run(opt)
				got := w.b.fetched()
				if len(got) > 5 {
					t.Fatalf("a run fetched %d pages, more than checksPerRun 5", len(got))
				}
				for p := range got {
					checked[p]++
				}
				return rec
			}
			for n := range 4 { // the 20 new pages sent, and checked 5 a run
				rec := runChecking()
				if left := 15 - 5*n; rec.Changes == nil || rec.Changes.Checked != 5 || rec.Changes.Left != left {
					t.Fatalf("run %d of the first build: changes %+v; want 5 checked, %d left", n, rec.Changes, left)
				}
			}
			if got := in.take(); len(got) != 20 || len(checked) != 20 {
				t.Fatalf("the first build: sent %d, checked %d pages; want 20 sent, each checked", len(got), len(checked))
			}
			clear(checked)
			w.publish(1, map[string]int{"/p6": 1, "/p13": 1})
			var sent []string
			for n := range 4 {
				rec := runChecking()
				if left := 15 - 5*n; rec.Changes == nil || rec.Changes.Checked != 5 || rec.Changes.Left != left {
					t.Fatalf("run %d of the second build: changes %+v; want 5 checked, %d left", n, rec.Changes, left)
				}
				sent = append(sent, in.take()...)
			}
			if slices.Sort(sent); !slices.Equal(sent, urls("/p13", "/p6")) || len(checked) != 20 {
				t.Fatalf("4 runs after a build that edited /p6 and /p13: sent %v, checked %d pages; want the 2 edited once, each page checked",
					sent, len(checked))
			}
		})
	}
}

// refusingPages is a client's transport that refuses the page fetches (channel.PageFetch) past
// those allowed, as the Worker's does once only its last subrequests are left.
type refusingPages struct {
	next    http.RoundTripper
	allowed atomic.Int32
}

func (r *refusingPages) RoundTrip(req *http.Request) (*http.Response, error) {
	if channel.IsPageFetch(req.Context()) && r.allowed.Add(-1) < 0 {
		return nil, channel.ErrNoFetch
	}
	return r.next.RoundTrip(req)
}

// TestChecksThatCouldNotBeMadeWait: the suspects a run could not check — its fetches spent —
// are neither checked nor failed nor sent: left, they are checked by the next run, and the
// edited among them sent then.
func TestChecksThatCouldNotBeMadeWait(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			w := newBuilds(t, open, "", 10)
			in := &fakeChannel{name: "indexnow", batch: 100}
			opt := runner.Options{Channels: []channel.Channel{in}}
			tr := &refusingPages{next: w.b}
			runAllowing := func(n int32) *model.Record {
				w.at = w.at.Add(time.Hour)
				tr.allowed.Store(n)
				r := contentRunner(w.open, w.at, w.b)
				r.Client.Transport = tr
				return run(t, r, w.s, opt)
			}
			w.publish(0, nil)
			runAllowing(100)
			in.take()
			edited := urls("/p1", "/p8")
			w.publish(1, map[string]int{"/p1": 1, "/p8": 1})
			rec := runAllowing(3)
			sent := in.take()
			if c := rec.Changes; c == nil || c.Checked != 3 || c.Left != 7 || c.Failed != 0 || len(sent) > 2 {
				t.Fatalf("a run with 3 page fetches: changes %+v, sent %v; want 3 checked, 7 left, none failed, no page not checked sent", c, sent)
			}
			rec = runAllowing(100)
			sent = append(sent, in.take()...)
			if slices.Sort(sent); !slices.Equal(sent, edited) || rec.Changes.Left != 0 {
				t.Errorf("the run after: sent %v over both runs, changes %+v; want the 2 edited, none left", sent, rec.Changes)
			}
		})
	}
}
