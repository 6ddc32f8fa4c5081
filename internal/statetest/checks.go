package statetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// checked is page(h, lastmod) on a sitemap checked by content.
func checked(h int64, lastmod time.Time) channel.Page {
	p := page(h, lastmod)
	p.Check = true
	return p
}

// toCheck returns PagesToCheck's answer, and fails the test on an error.
func toCheck(t *testing.T, s State, limit int) []model.ToCheck {
	t.Helper()
	got, err := s.PagesToCheck(ctx, "a", limit)
	must(t, err)
	return got
}

// inLine returns the hashes of PagesToCheck's answer, in its order, a suspect's negated: the
// rotation as a test compares it.
func inLine(t *testing.T, s State, limit int) []int64 {
	t.Helper()
	var out []int64
	for _, c := range toCheck(t, s, limit) {
		if c.Suspect {
			c.Hash = -c.Hash
		}
		out = append(out, c.Hash)
	}
	return out
}

// recordChecks records checks, and fails the test on an error.
func recordChecks(t *testing.T, s State, checks ...model.PageCheck) {
	t.Helper()
	must(t, s.RecordChecks(ctx, "a", checks))
}

// testRotation: pages given with Check join the rotation, suspects when new, when their lastmod
// moved (not when it went missing) or when they were not in it; pages given without Check leave
// it and keep their content; pages given without their URL, and a dry run, change nothing.
func testRotation(t *testing.T, b Backend) {
	s := b.Open(t)
	lm := t0.Add(-time.Hour)
	sync(t, s, "a", t0, []channel.Page{checked(1, lm), checked(2, time.Time{}), page(3, lm), checked(4, lm), checked(5, lm), page(6, lm)}, nil)
	if _, err := s.SyncCatalog(ctx, "a", t0, []channel.Page{checked(7, lm)}, nil, true); err != nil {
		t.Fatal(err)
	}
	s = b.Reopen(t, s)
	if got, want := inLine(t, s, 10), []int64{-1, -2, -4, -5}; !slices.Equal(got, want) {
		t.Fatalf("new pages with Check (and one synced by a dry run): %v in line, want the suspects %v", got, want)
	}
	for i, h := range []int64{1, 2, 4, 5} {
		recordChecks(t, s, model.PageCheck{Hash: h, At: t0.Add(time.Duration(i+1) * time.Minute), Content: uint64(100 + h)})
	}
	s = b.Reopen(t, s)
	if got, want := inLine(t, s, 10), []int64{1, 2, 4, 5}; !slices.Equal(got, want) {
		t.Fatalf("after a check each: %v in line, want %v", got, want)
	}
	// 1's lastmod moved, 3 joins, 4's lastmod went missing, 5 is trusted now; 6 (with Check) and 2
	// (without), given without their URLs (from a memo), are only looked up.
	moved := checked(1, lm.Add(time.Hour))
	noLastmod := checked(4, time.Time{})
	fromMemo := []channel.Page{{Hash: 6, Lastmod: lm, Check: true}, {Hash: 2}}
	got := sync(t, s, "a", t0.Add(time.Hour), append([]channel.Page{moved, checked(3, lm), noLastmod, page(5, lm)}, fromMemo...), []string{"indexnow"})
	s = b.Reopen(t, s)
	if line, want := inLine(t, s, 10), []int64{-1, -3, 2, 4}; !slices.Equal(line, want) {
		t.Errorf("after a sync: %v in line, want %v (1 moved, 3 joined, 4 did not move, 5 left, 2 and 6 untouched)", line, want)
	}
	for i, want := range []uint64{101, 0, 104, 105, 0, 102} {
		if got[i].Content != want || got[i].Known {
			t.Errorf("page %d's state: %+v; want its content %d, unknown on the channel", i, got[i], want)
		}
	}
	// On a site none of whose pages was checked yet, a sync of pages without Check alone takes
	// them out of the rotation too.
	sync(t, s, "b", t0, []channel.Page{checked(1, lm)}, nil)
	sync(t, s, "b", t0.Add(time.Hour), []channel.Page{page(1, lm)}, nil)
	s = b.Reopen(t, s)
	if got, err := s.PagesToCheck(ctx, "b", 10); err != nil || len(got) != 0 {
		t.Errorf("a page out of the rotation of a site never checked: %+v to check, %v; want none", got, err)
	}
}

// testFirstRunRotation, for a state with a fast first run: pages added with Check are suspects.
func testFirstRunRotation(t *testing.T, b Backend) {
	s := b.Open(t)
	l, ok := s.(runner.NewSiteLoader)
	if !ok {
		t.Skip("the state has no fast first run")
	}
	must(t, l.AddPages(ctx, "a", t0, []channel.Page{checked(1<<62, time.Time{}), page(3, t0), checked(2, t0)}, false))
	s = b.Reopen(t, s)
	if got, want := inLine(t, s, 10), []int64{-2, -1 << 62}; !slices.Equal(got, want) {
		t.Errorf("pages added, two with Check: %v in line, want %v", got, want)
	}
}

// testPagesToCheck: the suspects first, then in the order of their check key, at most limit,
// each with its URL, lastmod, content and validators; a URL that left the sitemaps is not
// checked.
func testPagesToCheck(t *testing.T, b Backend) {
	s := b.Open(t)
	if got := toCheck(t, s, 10); len(got) != 0 {
		t.Errorf("an empty site: %+v to check", got)
	}
	var pages []channel.Page
	for h := range int64(8) {
		pages = append(pages, checked(h+1, t0))
	}
	sync(t, s, "a", t0, pages, nil)
	v := model.Validators{ETag: `"e5"`, LastModified: "Sun, 01 Mar 2026 12:00:00 GMT"}
	// Checked at times out of the order of their hashes: 5, 2, 7, 3; 1, 4, 6 and 8 not yet.
	for i, h := range []int64{5, 2, 7, 3} {
		c := model.PageCheck{Hash: h, At: t0.Add(time.Duration(i+1) * time.Minute), Content: uint64(h) << 40}
		if h == 5 {
			c.Validators = v
		}
		recordChecks(t, s, c)
	}
	must(t, s.MarkLeft(ctx, "a", []int64{6}, t0.Add(time.Hour)))
	s = b.Reopen(t, s)
	if got, want := inLine(t, s, 10), []int64{-1, -4, -8, 5, 2, 7, 3}; !slices.Equal(got, want) {
		t.Errorf("in line: %v, want %v", got, want)
	}
	if got, want := inLine(t, s, 5), []int64{-1, -4, -8, 5, 2}; !slices.Equal(got, want) {
		t.Errorf("the first 5 in line: %v, want %v", got, want)
	}
	got := toCheck(t, s, 4)
	want := model.ToCheck{Hash: 5, URL: pages[4].URL, Lastmod: t0, Content: 5 << 40, Validators: v}
	if len(got) != 4 || got[3] != want || got[0] != (model.ToCheck{Hash: 1, URL: pages[0].URL, Lastmod: t0, Suspect: true}) {
		t.Errorf("the first 4 to check: %+v; want a suspect unchecked first and %+v last", got, want)
	}
	// A URL that left comes back: a suspect again.
	sync(t, s, "a", t0.Add(2*time.Hour), []channel.Page{checked(6, t0)}, nil)
	if got := inLine(t, s, 1); !slices.Equal(got, []int64{-1}) || !slices.Contains(inLine(t, s, 10), -6) {
		t.Errorf("a URL that left, back: in line %v; want it a suspect", inLine(t, s, 10))
	}
}

// testRecordChecks: a check that found the content records it with its validators and clears the
// suspect, the page going to the back of the line — unless its content changed: it keeps its
// place; every delivery of the page with nothing recorded as sent takes the content; a failed
// check changes nothing; a check of an unknown page is ignored.
func testRecordChecks(t *testing.T, b Backend) {
	s := b.Open(t)
	sync(t, s, "a", t0, []channel.Page{checked(1, t0), checked(2, t0), checked(3, t0)}, nil)
	// 1 was delivered on indexnow and failed on bing before its first check.
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1, Lastmod: t0}}, Delivered: true}))
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: 1, Lastmod: t0}}, Err: "HTTP 503"}))
	v := model.Validators{ETag: `W/"1"`}
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	recordChecks(t, s, model.PageCheck{Hash: 1, At: at(1), Content: 11, Validators: v}, model.PageCheck{Hash: 2, At: at(2), Content: 22},
		model.PageCheck{Hash: 3, At: at(3)}, model.PageCheck{Hash: 99, At: at(3), Content: 99})
	s = b.Reopen(t, s)
	if got, want := inLine(t, s, 10), []int64{-3, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("after a check each, 3's failed: %v in line, want %v", got, want)
	}
	states := sync(t, s, "a", at(4), []channel.Page{checked(1, t0)}, []string{"indexnow", "bing"})
	if want := uint64(11); states[0].Content != want || states[0].Sent != want || states[1].Content != want || states[1].Sent != want {
		t.Errorf("a page's first check: %+v; want content and sent %d on both channels", states, want)
	}
	if u, _ := s.URLs(ctx, "a", []int64{99}); u[0] != "" {
		t.Error("a check of an unknown page added it")
	}
	// 1 changed (it keeps its place, and what was sent), 2 did not (it goes to the back).
	recordChecks(t, s, model.PageCheck{Hash: 1, At: at(5), Content: 12, Changed: true}, model.PageCheck{Hash: 2, At: at(4), Content: 22})
	s = b.Reopen(t, s)
	if got, want := inLine(t, s, 10), []int64{-3, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("1 changed, 2 did not: %v in line, want %v", got, want)
	}
	if got := toCheck(t, s, 10)[1]; got != (model.ToCheck{Hash: 1, URL: page(1, t0).URL, Lastmod: t0, Content: 12}) {
		t.Errorf("1 after a check that changed it: %+v; want its content 12, and no validators left", got)
	}
	states = sync(t, s, "a", at(6), []channel.Page{checked(1, t0)}, []string{"indexnow"})
	if states[0].Content != 12 || states[0].Sent != 11 {
		t.Errorf("a page changed since it was sent: %+v; want content 12, sent 11", states[0])
	}
	// Unchanged this time: 1 goes to the back; 3's check fails again: it stays a suspect.
	recordChecks(t, s, model.PageCheck{Hash: 1, At: at(7), Content: 12}, model.PageCheck{Hash: 3, At: at(7)})
	s = b.Reopen(t, s)
	if got, want := inLine(t, s, 10), []int64{-3, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("1 unchanged: %v in line, want %v", got, want)
	}
	// 2's lastmod moves, and its check finds it changed: a suspect no more, it has no place in line
	// to keep and goes to the back. 4, not in the rotation, is checked: it stays out of it.
	sync(t, s, "a", at(8), []channel.Page{checked(2, at(8)), page(4, t0)}, nil)
	recordChecks(t, s, model.PageCheck{Hash: 2, At: at(9), Content: 23, Changed: true}, model.PageCheck{Hash: 4, At: at(9), Content: 44})
	s = b.Reopen(t, s)
	if got, want := inLine(t, s, 10), []int64{-3, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("a suspect changed, a page out of the rotation checked: %v in line, want %v", got, want)
	}
	if got := sync(t, s, "a", at(10), []channel.Page{page(4, t0)}, []string{"indexnow"}); got[0].Content != 44 {
		t.Errorf("a page out of the rotation, checked: %+v; want its content 44", got[0])
	}
}

// testSentOnOutcome: a delivery that settled (accepted, rejected, taken as known without being sent) takes the page's
// content as what was sent; a failure and a URL a preflight held back keep what was sent before.
func testSentOnOutcome(t *testing.T, b Backend) {
	s := b.Open(t)
	sync(t, s, "a", t0, []channel.Page{checked(1, t0), checked(2, t0)}, nil)
	recordChecks(t, s, model.PageCheck{Hash: 1, At: t0, Content: 11})
	due := []channel.Due{{Hash: 1, Lastmod: t0}, {Hash: 2, Lastmod: t0}}
	outcome := func(ch string, o channel.Outcome) {
		t.Helper()
		o.Channel, o.URLs = ch, due
		must(t, s.RecordOutcome(ctx, "a", t0, o))
	}
	chs := []string{"indexnow", "bing", "feed", "google", "extra", "again"}
	for _, ch := range chs {
		outcome(ch, channel.Outcome{Delivered: true})
	}
	recordChecks(t, s, model.PageCheck{Hash: 1, At: t0.Add(time.Minute), Content: 12, Changed: true}, model.PageCheck{Hash: 2, At: t0.Add(time.Minute), Content: 21})
	outcome("indexnow", channel.Outcome{Err: "HTTP 503"})
	outcome("bing", channel.Outcome{Rejected: true, Err: "InvalidUrl"})
	outcome("feed", channel.Outcome{Unsent: model.UnsentBacklog})
	outcome("google", channel.Outcome{Preflight: &channel.Preflight{Reason: channel.NotNoindex, Detail: "noindex"}})
	outcome("extra", channel.Outcome{Preflight: &channel.Preflight{Reason: channel.NotStatus, Detail: "HTTP 503", Again: true}})
	outcome("again", channel.Outcome{Delivered: true})
	s = b.Reopen(t, s)
	got := sync(t, s, "a", t0.Add(time.Hour), []channel.Page{checked(1, t0), checked(2, t0)}, chs)
	// 2 was never checked when it was first delivered: its first check recorded its content as sent.
	for i, want := range [][]uint64{{11, 12, 12, 11, 11, 12}, {21, 21, 21, 21, 21, 21}} {
		for c, ch := range chs {
			if st := got[i*len(chs)+c]; st.Sent != want[c] || st.Content != [...]uint64{12, 21}[i] {
				t.Errorf("page %d on %s: %+v; want sent %d", i+1, ch, st, want[c])
			}
		}
	}
}
