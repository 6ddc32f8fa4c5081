package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// selective is a channel that selects like a feed: new pages only, and on its first run the
// newest few, the others set aside as known. It fails the URLs the test names.
type selective struct {
	sel     channel.Selection
	fail    map[string]bool
	newest  []string // what the queue said were the newest pages
	due     []channel.Due
	asked   int
	partial bool // the queue said some sitemap was not read whole
}

func (c *selective) Name() string { return "feed" }

func (c *selective) Selection(context.Context) channel.Selection {
	c.asked++
	return c.sel
}

func (c *selective) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	c.newest, c.partial = nil, !q.Complete()
	for _, p := range q.Newest() {
		c.newest = append(c.newest, p.URL)
	}
	due, err := q.Slice(ctx, 0, q.Len())
	if err != nil {
		return err
	}
	c.due = due
	for _, d := range due {
		o := channel.Outcome{Channel: "feed", URLs: []channel.Due{d}, Delivered: true}
		switch {
		case c.fail[d.URL]:
			o = channel.Outcome{Channel: "feed", URLs: []channel.Due{d}, Err: "HTTP 500"}
		case c.sel.FirstRun && !slices.Contains(c.newest, d.URL):
			o.Delivered, o.Unsent = false, model.UnsentBacklog
		}
		if err := rep.Finished(o); err != nil {
			return err
		}
	}
	return nil
}

// TestARunUsesTheChannelsSelection checks what the run does with a Selection: it asks once, shows
// a first run's effect in a dry run, hands the newest pages over, counts the pages set aside as
// known, makes only new and failed pages due when asked for new ones only, and carries the
// failures in a row over.
func TestARunUsesTheChannelsSelection(t *testing.T) {
	s := newSite(t, "")
	s.publish("/a 2026-01-01", "/b 2026-03-01", "/c", "/d 2026-02-01", "/e 2026-01-15")
	r := runner.New(storetest.Open(t))
	ch := &selective{sel: channel.Selection{OnlyNew: true, Newest: 2, FirstRun: true}, fail: map[string]bool{}}
	opt := runner.Options{Channels: []channel.Channel{ch}}

	dry := opt
	dry.DryRun = true
	rec := run(t, r, s, dry)
	if st := rec.Channels["feed"]; st.Due != 2 || st.Backlog != 3 || st.Skipped != 0 || !slices.Equal(st.Sample, urls("/b", "/d")) || ch.due != nil {
		t.Errorf("a dry run of a first run: %+v, delivered %v; want the 2 newest due, the rest known", st, ch.due)
	}

	rec = run(t, r, s, opt)
	if st := rec.Channels["feed"]; st.Due != 2 || st.Submitted != 2 || st.Backlog != 3 || rec.Status != model.StatusOK ||
		!slices.Equal(ch.newest, urls("/b", "/d")) || ch.partial {
		t.Errorf("the first run: %+v, %s, newest %v, partial %v", st, rec.Status, ch.newest, ch.partial)
	}

	// Later: new pages only. /a changes, /f is new and fails twice.
	ch.sel = channel.Selection{OnlyNew: true}
	ch.fail[urls("/f")[0]] = true
	s.publish("/a 2026-04-01", "/b 2026-03-01", "/c", "/d 2026-02-01", "/e 2026-01-15", "/f")
	for want := range 3 {
		ch.due = nil
		run(t, r, s, opt)
		if len(ch.due) != 1 || ch.due[0].URL != urls("/f")[0] || ch.due[0].Failures != want || ch.due[0].Retry != (want > 0) {
			t.Fatalf("run %d after the first: due %+v; want only the new page, failed %d times before", want+2, ch.due, want)
		}
	}
	if ch.asked != 5 {
		t.Errorf("the selection was asked %d times in 5 runs; want once a run", ch.asked)
	}
}

// TestAQueueKnowsWhenTheReadWasNotWhole checks that a sitemap that failed while another was read
// tells the channel its view is not complete, and makes the run partial.
func TestAQueueKnowsWhenTheReadWasNotWhole(t *testing.T) {
	s := newSite(t, "")
	s.publish("/a", "/b")
	s.site.Sitemaps = append(s.site.Sitemaps, filepath.Join(s.dir, "gone.xml"))
	os.Remove(filepath.Join(s.dir, "gone.xml"))
	ch := &selective{sel: channel.Selection{OnlyNew: true}}
	rec := run(t, runner.New(storetest.Open(t)), s, runner.Options{Channels: []channel.Channel{ch}})
	if !ch.partial || rec.Status != model.StatusPartial || rec.Sitemaps.Failed != 1 || rec.Channels["feed"].Submitted != 2 {
		t.Errorf("one sitemap of two gone: partial view %v, %s, sitemaps %+v, %+v", ch.partial, rec.Status, rec.Sitemaps, rec.Channels["feed"])
	}
}

// TestChosenURLsAreNewToAFeedOnce checks that a channel of new URLs only (the feed) takes a
// chosen URL only when it never had it: a page it has — delivered, or known without being sent
// on its first run — is not due again, forced or not, while a page never seen is. Before the
// channel's first run, which takes the newest pages of the sitemaps, chosen URLs wait for it.
func TestChosenURLsAreNewToAFeedOnce(t *testing.T) {
	s := newSite(t, "")
	s.publish("/a 2026-01-01", "/b 2026-03-01", "/c 2026-02-01")
	r := runner.New(storetest.Open(t))
	ch := &selective{sel: channel.Selection{OnlyNew: true, Newest: 1, FirstRun: true}}
	opt := runner.Options{Channels: []channel.Channel{ch}}

	chosen := opt
	chosen.URLs = urls("/a")
	rec := run(t, r, s, chosen)
	if st := rec.Channels["feed"]; ch.due != nil || st.Due != 0 || st.Skipped != 0 || rec.Status != model.StatusOK ||
		!slices.ContainsFunc(rec.Notes, func(n string) bool { return strings.Contains(n, "the chosen URLs wait for the site's next run") }) {
		t.Fatalf("a chosen URL before the feed's first run: delivered %v, %+v, %s, notes %q; want nothing due, a note", ch.due, st, rec.Status, rec.Notes)
	}
	if rec = run(t, r, s, opt); !slices.Equal(ch.newest, urls("/b")) || rec.Channels["feed"].Submitted != 1 || rec.Channels["feed"].Backlog != 2 {
		t.Fatalf("the first run after it: newest %v, %+v; want /b its item, /a and /c known", ch.newest, rec.Channels["feed"])
	}

	ch.sel = channel.Selection{OnlyNew: true}
	for _, force := range []bool{false, true} {
		for _, u := range []string{"/a", "/b"} { // known without an item; an item
			ch.due = nil
			chosen.URLs, chosen.Force = urls(u), force
			if rec := run(t, r, s, chosen); ch.due != nil || rec.Channels["feed"].Due != 0 || rec.Channels["feed"].Skipped != 1 {
				t.Errorf("%s chosen (force %v): delivered %v, %+v; want it known, not due", u, force, ch.due, rec.Channels["feed"])
			}
		}
	}
	ch.due = nil
	chosen.URLs, chosen.Force = urls("/new"), false
	if rec := run(t, r, s, chosen); len(ch.due) != 1 || ch.due[0].URL != urls("/new")[0] || rec.Channels["feed"].Submitted != 1 {
		t.Errorf("a page never seen, chosen: delivered %v, %+v; want it new", ch.due, rec.Channels["feed"])
	}
}
