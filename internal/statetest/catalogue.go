package statetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

func page(h int64, lastmod time.Time) channel.Page {
	return channel.Page{Hash: h, URL: "https://a.example/" + time.Duration(h).String(), Lastmod: lastmod}
}

// sync syncs pages and fails the test on an error.
// sync syncs pages and returns their delivery states, without Listed (the catalogue's lastmod,
// which testListed checks): the tests compare what channels did.
func sync(t *testing.T, s State, site string, now time.Time, pages []channel.Page, channels []string) []model.DeliveryState {
	t.Helper()
	got, err := s.SyncCatalog(ctx, site, now, pages, channels, false)
	must(t, err)
	for i := range got {
		got[i].Listed = time.Time{}
	}
	return got
}

// testListed: SyncCatalog's states say the lastmod the catalogue recorded before the call, on
// every channel, whatever a channel was sent — nothing for a new page — and a look-up that
// writes nothing (dryRun, a page without its URL) says the one recorded last.
func testListed(t *testing.T, b Backend) {
	s := b.Open(t)
	ch := []string{"indexnow", "bing"}
	lm, lm2 := t0.Add(-2*time.Hour), t0.Add(-time.Hour)
	listed := func(pages []channel.Page, dry bool) []time.Time {
		t.Helper()
		got, err := s.SyncCatalog(ctx, "a", t0, pages, ch, dry)
		must(t, err)
		var out []time.Time
		for _, st := range got {
			out = append(out, st.Listed)
		}
		return out
	}
	if got := listed([]channel.Page{page(1, lm)}, false); !got[0].IsZero() || !got[1].IsZero() {
		t.Errorf("a new page: listed %v, want none", got)
	}
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1, Lastmod: lm}}, Delivered: true}))
	if got := listed([]channel.Page{page(1, lm2)}, false); !got[0].Equal(lm) || !got[1].Equal(lm) {
		t.Errorf("a page whose lastmod moved: listed %v, want %v on both channels", got, lm)
	}
	s = b.Reopen(t, s)
	if got := listed([]channel.Page{{Hash: 1}}, true); !got[0].Equal(lm2) || !got[1].Equal(lm2) {
		t.Errorf("a look-up: listed %v, want %v (recorded last), whatever indexnow was sent", got, lm2)
	}
}

func testCatalogue(t *testing.T, b Backend) {
	s := b.Open(t)
	ch := []string{"indexnow", "bing"}
	lm := t0.Add(-time.Hour)
	pages := []channel.Page{page(1, lm), page(-2, time.Time{}), page(1<<62, lm)}
	if got := sync(t, s, "a", t0, pages, ch); len(got) != 6 || slices.ContainsFunc(got, func(d model.DeliveryState) bool { return d.Known }) {
		t.Fatalf("new pages: %v", got)
	}
	urls, err := s.URLs(ctx, "a", []int64{1 << 62, 7, 1, -2})
	if want := []string{pages[2].URL, "", pages[0].URL, pages[1].URL}; err != nil || !slices.Equal(urls, want) {
		t.Errorf("URLs = %q, %v; want %q", urls, err, want)
	}
	if other, _ := s.URLs(ctx, "b", []int64{1}); other[0] != "" {
		t.Error("sites must not share a catalogue")
	}
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: 1, Lastmod: lm}}, Delivered: true}))
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: -2}}, Err: "HTTP 503"}))
	s = b.Reopen(t, s)
	got := sync(t, s, "a", t0.Add(time.Minute), pages, ch)
	want := []model.DeliveryState{{}, {Known: true, Lastmod: lm, DeliveredAt: t0}, {Known: true, Failed: true, Failures: 1}, {}, {}, {}}
	if !slices.Equal(got, want) {
		t.Errorf("states = %+v\nwant     %+v", got, want)
	}
}

func testCatalogueWrites(t *testing.T, b Backend) {
	s := b.Open(t)
	p := page(5, t0)
	sync(t, s, "a", t0, []channel.Page{p}, nil)
	// A dry run writes nothing, even for a URL it has not seen.
	if _, err := s.SyncCatalog(ctx, "a", t0, []channel.Page{page(6, t0)}, nil, true); err != nil {
		t.Fatal(err)
	}
	s = b.Reopen(t, s)
	if u, _ := s.URLs(ctx, "a", []int64{6, 5}); u[0] != "" || u[1] != p.URL {
		t.Errorf("after a sync and a dry run: URLs %q", u)
	}
	moved := p
	moved.Lastmod = t0.Add(time.Hour)
	moved.URL += "?v=2"
	sync(t, s, "a", t0.Add(time.Minute), []channel.Page{moved}, nil)
	s = b.Reopen(t, s)
	if u, _ := s.URLs(ctx, "a", []int64{5}); u[0] != moved.URL {
		t.Errorf("URL after a change = %q", u[0])
	}
	// Two URLs with one hash in a batch: the state is shared, nothing fails.
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 5, Lastmod: moved.Lastmod}}, Delivered: true}))
	twin := page(5, t0)
	twin.URL = "https://a.example/twin"
	if got := sync(t, s, "a", t0, []channel.Page{moved, twin}, []string{"indexnow"}); len(got) != 2 || !got[0].Known || got[0] != got[1] {
		t.Errorf("hash twins: %v", got)
	}
}

// testFirstRunLoad, for a state with a fast first run (runner.NewSiteLoader): a site without
// URLs is empty; pages added are in the catalogue, unknown on every channel, and a page there
// already is left as it is; a dry run adds nothing.
func testFirstRunLoad(t *testing.T, b Backend) {
	s := b.Open(t)
	if _, ok := s.(runner.NewSiteLoader); !ok {
		t.Skip("the state has no fast first run")
	}
	empty := func(site string) bool {
		t.Helper()
		e, err := s.(runner.NewSiteLoader).CatalogEmpty(ctx, site)
		must(t, err)
		return e
	}
	add := func(dryRun bool, pages ...channel.Page) {
		t.Helper()
		must(t, s.(runner.NewSiteLoader).AddPages(ctx, "a", t0, pages, dryRun))
	}
	if !empty("a") {
		t.Fatal("a site never synced is not empty")
	}
	add(true, page(1, t0))
	if !empty("a") {
		t.Error("a dry run added a page")
	}
	add(false, page(1, t0), page(-2, time.Time{}))
	again := page(1, t0.Add(time.Hour))
	again.URL += "?v=2"
	add(false, again)
	s = b.Reopen(t, s)
	if empty("a") || !empty("b") {
		t.Errorf("after pages added to site a: a empty %v, b empty %v", empty("a"), empty("b"))
	}
	if urls, err := s.URLs(ctx, "a", []int64{1, -2}); err != nil || !slices.Equal(urls, []string{page(1, t0).URL, page(-2, t0).URL}) {
		t.Errorf("URLs of the pages added: %q, %v", urls, err)
	}
	if got := sync(t, s, "a", t0.Add(time.Minute), []channel.Page{page(1, t0)}, []string{"indexnow"}); len(got) != 1 || got[0].Known {
		t.Errorf("a page added, on a channel: %+v; want unknown", got)
	}
}

// testCatalogueLookups: a page without its URL (one a run takes from a memo) is looked up, and
// neither adds a URL nor rewrites one.
func testCatalogueLookups(t *testing.T, b Backend) {
	s := b.Open(t)
	p := page(9, t0)
	sync(t, s, "a", t0, []channel.Page{p}, nil)
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 9, Lastmod: t0}}, Delivered: true}))
	s = b.Reopen(t, s)
	got := sync(t, s, "a", t0.Add(48*time.Hour), []channel.Page{{Hash: 9, Lastmod: t0}, {Hash: 10, Lastmod: t0}}, []string{"indexnow"})
	if want := []model.DeliveryState{{Known: true, Lastmod: t0, DeliveredAt: t0}, {}}; !slices.Equal(got, want) {
		t.Errorf("states of pages without URLs = %+v, want %+v", got, want)
	}
	s = b.Reopen(t, s)
	if u, _ := s.URLs(ctx, "a", []int64{9, 10}); u[0] != p.URL || u[1] != "" {
		t.Errorf("after looking pages up without their URLs: URLs %q; want %q and none", u, p.URL)
	}
}

func testOutcomes(t *testing.T, b Backend) {
	s := b.Open(t)
	lm := t0.Add(-time.Hour)
	sync(t, s, "a", t0, []channel.Page{page(1, lm), page(2, time.Time{})}, nil)
	due := []channel.Due{{Hash: 1, Lastmod: lm}, {Hash: 2}}
	state := func() model.DeliveryState {
		t.Helper()
		return sync(t, s, "a", t0, []channel.Page{page(1, lm)}, []string{"indexnow"})[0]
	}
	fail := func(at time.Time, msg string) {
		must(t, s.RecordOutcome(ctx, "a", at, channel.Outcome{Channel: "indexnow", URLs: due, Err: msg}))
	}
	fail(t0, "HTTP 503")
	fail(t0.Add(time.Minute), "HTTP 429")
	s = b.Reopen(t, s)
	if got := state(); got != (model.DeliveryState{Known: true, Failed: true, Failures: 2}) {
		t.Errorf("after two failures: %+v", got)
	}
	must(t, s.RecordOutcome(ctx, "a", t0.Add(2*time.Minute), channel.Outcome{Channel: "indexnow", URLs: due, Delivered: true}))
	s = b.Reopen(t, s)
	if got := state(); got != (model.DeliveryState{Known: true, Lastmod: lm, DeliveredAt: t0.Add(2 * time.Minute)}) {
		t.Errorf("after a success: %+v", got)
	}
	// A failure after a success starts counting again and keeps what was delivered.
	fail(t0.Add(time.Hour), "HTTP 403: key not valid")
	s = b.Reopen(t, s)
	if got := state(); got != (model.DeliveryState{Known: true, Lastmod: lm, DeliveredAt: t0.Add(2 * time.Minute), Failed: true, Failures: 1}) {
		t.Errorf("a failure after a success: %+v", got)
	}
	if err := s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow"}); err != nil {
		t.Errorf("an empty outcome: %v", err)
	}
}

func testRejectedAndUnsent(t *testing.T, b Backend) {
	s := b.Open(t)
	lm := t0.Add(-time.Hour)
	bad := channel.Page{Hash: 3, URL: "https://a.example/bad url", Lastmod: lm}
	sync(t, s, "a", t0, []channel.Page{bad, page(4, lm), page(5, time.Time{})}, nil)
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "bing", URLs: []channel.Due{{Hash: 3, Lastmod: lm}}, Rejected: true, Err: "InvalidUrl"}))
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "feed", URLs: []channel.Due{{Hash: 4, Lastmod: lm}, {Hash: 5}}, Unsent: model.UnsentBacklog}))
	s = b.Reopen(t, s)
	if got := sync(t, s, "a", t0, []channel.Page{bad}, []string{"bing"}); got[0] != (model.DeliveryState{Known: true, Lastmod: lm, DeliveredAt: t0}) {
		t.Errorf("a rejected URL: %+v; want known, not failed", got[0])
	}
	if got := sync(t, s, "a", t0, []channel.Page{page(4, lm)}, []string{"feed"}); got[0] != (model.DeliveryState{Known: true, Lastmod: lm, Unsent: model.UnsentBacklog, TakenAt: t0}) {
		t.Errorf("a URL of the backlog: %+v; want known, never sent (no delivery time), taken at %v", got[0], t0)
	}
	days, err := s.ChannelDays(ctx, t0, "a")
	if want := []model.ChannelDay{{Day: "2026-03-01", Channel: "bing", Total: 1, Failed: 1}}; err != nil || !slices.Equal(days, want) {
		t.Errorf("a rejection counts as a failure, URLs never sent not at all: %+v, %v", days, err)
	}
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "feed", URLs: []channel.Due{{Hash: 4, Lastmod: lm}}, Delivered: true}))
	if got := sync(t, s, "a", t0, []channel.Page{page(4, lm)}, []string{"feed"}); got[0] != (model.DeliveryState{Known: true, Lastmod: lm, DeliveredAt: t0}) {
		t.Errorf("a URL of the backlog delivered since: %+v; want known as delivered", got[0])
	}
}

// testUnsent holds a state to what it keeps of URLs taken as known without being sent: the
// reason, when, the lastmod — no delivery time, no attempt: a failure after counts 1 — and of a
// URL delivered before and then listed unchanged by a baseline, its last delivery.
func testUnsent(t *testing.T, b Backend) {
	s := b.Open(t)
	lm, t1 := t0.Add(-time.Hour), t0.Add(time.Hour)
	sync(t, s, "a", t0, []channel.Page{page(1, lm), page(2, lm), page(3, lm)}, nil)
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1, Lastmod: lm}}, Unsent: model.UnsentBacklog}))
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 2, Lastmod: lm}}, Delivered: true}))
	must(t, s.RecordOutcome(ctx, "a", t1, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 2, Lastmod: t0}, {Hash: 3, Lastmod: lm}}, Unsent: model.UnsentBaseline}))
	s = b.Reopen(t, s)
	got := sync(t, s, "a", t1, []channel.Page{page(1, lm), page(2, t0), page(3, lm)}, []string{"indexnow"})
	want := []model.DeliveryState{
		{Known: true, Lastmod: lm, Unsent: model.UnsentBacklog, TakenAt: t0},
		{Known: true, Lastmod: t0, DeliveredAt: t0, Unsent: model.UnsentBaseline, TakenAt: t1},
		{Known: true, Lastmod: lm, Unsent: model.UnsentBaseline, TakenAt: t1},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("URL %d: %+v; want %+v", i+1, got[i], want[i])
		}
	}
	must(t, s.RecordOutcome(ctx, "a", t1, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1, Lastmod: lm}}, Err: "HTTP 500"}))
	if got := sync(t, s, "a", t1, []channel.Page{page(1, lm)}, []string{"indexnow"}); !got[0].Failed || got[0].Failures != 1 {
		t.Errorf("a failure of a URL never sent before: %+v; want failed, 1 failure (taking it as known was no attempt)", got[0])
	}
	days, err := s.ChannelDays(ctx, t1, "a")
	if want := []model.ChannelDay{{Day: "2026-03-01", Channel: "indexnow", Total: 2, Successful: 1, Failed: 1}}; err != nil || !slices.Equal(days, want) {
		t.Errorf("URLs never sent count in no day: %+v, %v", days, err)
	}
}

func testStatistics(t *testing.T, b Backend) {
	s := b.Open(t)
	due := func(n int) []channel.Due {
		out := make([]channel.Due, n)
		for i := range out {
			out[i].Hash = int64(i + 1)
		}
		return out
	}
	yesterday := t0.Add(-24 * time.Hour)
	for _, r := range []struct {
		site string
		at   time.Time
		o    channel.Outcome
	}{
		{"a", yesterday, channel.Outcome{Channel: "indexnow", URLs: due(10), Delivered: true}},
		{"a", t0, channel.Outcome{Channel: "indexnow", URLs: due(4), Delivered: true}},
		{"a", t0.Add(time.Minute), channel.Outcome{Channel: "indexnow", URLs: due(2), Err: "HTTP 503"}},
		{"b", t0, channel.Outcome{Channel: "indexnow", URLs: due(5), Delivered: true}},
		{"b", t0, channel.Outcome{Channel: "bing", URLs: due(3), Delivered: true}},
	} {
		must(t, s.RecordOutcome(ctx, r.site, r.at, r.o))
	}
	// Requests, counted apart, do not count as URLs.
	must(t, s.RecordRequests(ctx, "a", t0, []channel.Request{{Channel: "indexnow", Endpoint: "https://e", URLs: 4, Accepted: true}}))
	s = b.Reopen(t, s)
	all, err := s.ChannelDays(ctx, yesterday, "")
	want := []model.ChannelDay{
		{Day: "2026-02-28", Channel: "indexnow", Total: 10, Successful: 10},
		{Day: "2026-03-01", Channel: "bing", Total: 3, Successful: 3},
		{Day: "2026-03-01", Channel: "indexnow", Total: 11, Successful: 9, Failed: 2},
	}
	if err != nil || !slices.Equal(all, want) {
		t.Errorf("every site: %+v, %v", all, err)
	}
	if one, _ := s.ChannelDays(ctx, t0, "a"); !slices.Equal(one, []model.ChannelDay{{Day: "2026-03-01", Channel: "indexnow", Total: 6, Successful: 4, Failed: 2}}) {
		t.Errorf("site a today: %+v", one)
	}
	// The last success is the last accepted delivery, not the failure after it.
	if last, err := s.LastSuccess(ctx, "a", "indexnow"); err != nil || !last.Equal(t0) {
		t.Errorf("last success %v, %v", last, err)
	}
	if last, _ := s.LastSuccess(ctx, "a", "bing"); !last.IsZero() {
		t.Errorf("no bing success: %v", last)
	}
}
