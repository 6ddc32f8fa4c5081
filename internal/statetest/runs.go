package statetest

import (
	"errors"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

func testLeases(t *testing.T, b Backend) {
	s := b.Open(t)
	// Five minutes: longer than any state's shortest lease (KV keeps nothing under a minute).
	ttl := 5 * time.Minute
	acquire := func(site, holder string, at time.Time) (model.Lease, *model.LeaseHeld) {
		t.Helper()
		l, err := s.AcquireLease(ctx, site, holder, at, ttl)
		var held *model.LeaseHeld
		if err != nil && !errors.As(err, &held) {
			t.Fatalf("acquiring the lease of %s for %s: %v", site, holder, err)
		}
		if (l == nil) == (held == nil) {
			t.Fatalf("acquiring the lease of %s for %s: lease %v, held %v; want one of them", site, holder, l, held)
		}
		return l, held
	}
	h1, held := acquire("a", "h1", t0)
	if held != nil {
		t.Fatalf("first acquire: held by %+v", held)
	}
	if _, held := acquire("a", "h2", t0.Add(time.Second)); held == nil || held.Holder != "h1" || !held.Until.Equal(t0.Add(ttl)) {
		t.Errorf("second holder: held %+v", held)
	}
	if _, held := acquire("b", "h2", t0); held != nil {
		t.Error("leases of different sites must not interfere")
	}
	if _, held := acquire("a", "h1", t0.Add(2*time.Second)); held == nil {
		t.Error("a holder took a lease it holds a second time: two runs of one site could overlap")
	}
	if leased, err := s.Leased(ctx, "a", t0.Add(time.Minute)); !leased || err != nil {
		t.Errorf("a held lease: %v %v", leased, err)
	}
	if err := h1.Renew(ctx, t0.Add(4*time.Minute), ttl); err != nil {
		t.Error(err)
	}
	if _, held := acquire("a", "h2", t0.Add(8*time.Minute)); held == nil {
		t.Error("a renewed lease was taken before it expired")
	}
	h2, held := acquire("a", "h2", t0.Add(10*time.Minute))
	if held != nil {
		t.Fatal("an expired lease must free itself")
	}
	if err := h1.Renew(ctx, t0.Add(10*time.Minute), ttl); !errors.Is(err, model.ErrLeaseLost) {
		t.Errorf("renewing a lost lease: %v", err)
	}
	must(t, h1.Release(ctx)) // lost: no effect
	if _, held := acquire("a", "h3", t0.Add(11*time.Minute)); held == nil {
		t.Error("a release by a former holder freed the lease")
	}
	must(t, h2.Release(ctx))
	if leased, _ := s.Leased(ctx, "a", t0.Add(11*time.Minute)); leased {
		t.Error("a released lease is held")
	}
	if _, held := acquire("a", "h3", t0.Add(11*time.Minute)); held != nil {
		t.Error("a released lease was not free")
	}
	if leased, _ := s.Leased(ctx, "c", t0); leased {
		t.Error("a site never leased is held")
	}
}

// start saves the record of a run of site starting at, and returns its id.
func start(t *testing.T, s State, site, trigger string, at time.Time) int64 {
	t.Helper()
	rec := &model.Record{Site: site, Trigger: trigger, StartedAt: at, Status: model.StatusRunning}
	must(t, s.SaveRun(ctx, rec))
	if rec.ID == 0 {
		t.Fatalf("a run of %s started at %v was given no id", site, at)
	}
	return rec.ID
}

func testRuns(t *testing.T, b Backend) {
	s := b.Open(t)
	if last, err := s.LastStarted(ctx, "a"); err != nil || !last.IsZero() {
		t.Fatalf("a site never run: %v %v", last, err)
	}
	dead := start(t, s, "a", "schedule", t0)
	other := start(t, s, "b", "cli", t0)
	s = b.Reopen(t, s) // the process running dead stops
	id := start(t, s, "a", "cli", t0.Add(time.Hour))
	if id == dead {
		t.Fatalf("a new run was given the id of the run before: %d", id)
	}
	runs, _ := s.Runs(ctx, "a", 10)
	if len(runs) != 2 || runs[0].ID != id || runs[0].Status != model.StatusRunning ||
		runs[1].ID != dead || runs[1].Status != model.StatusFailed || len(runs[1].Errors) != 1 {
		t.Errorf("a run going, and the one that died before it: %+v", runs)
	}
	if b, _ := s.Runs(ctx, "b", 1); len(b) != 1 || b[0].ID != other || b[0].Status != model.StatusRunning {
		t.Errorf("another site's run was closed: %+v", b)
	}
	rec := &model.Record{ID: id, Site: "a", Trigger: "cli", StartedAt: t0.Add(time.Hour), FinishedAt: t0.Add(time.Hour + 3*time.Second),
		Status: model.StatusPartial, TotalURLs: 10, Channels: map[string]*model.ChannelStats{"indexnow": {Due: 3, Submitted: 2, Failed: 1,
			Endpoints: map[string]*model.EndpointStats{"e": {Requests: 2, Accepted: 1, Failed: 1, AvgResponseMS: 12.5}}}},
		Errors: []string{"HTTP 503"}, Stopped: true, Stalled: 2,
		URLs: []model.RunURL{{Channel: "indexnow", URL: "https://a.example/x", Outcome: model.URLSubmitted}}}
	must(t, s.SaveRun(ctx, rec))
	if rec.ID != id {
		t.Errorf("saving a finished run changed its id from %d to %d", id, rec.ID)
	}
	s = b.Reopen(t, s)
	runs, err := s.Runs(ctx, "a", 10)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs = %+v, %v", runs, err)
	}
	got := runs[0]
	if got.ID != id || got.Status != model.StatusPartial || got.Channels["indexnow"].Endpoints["e"].AvgResponseMS != 12.5 ||
		!got.FinishedAt.Equal(rec.FinishedAt) || got.Errors[0] != "HTTP 503" || !got.Stopped || got.Stalled != 2 {
		t.Errorf("finished run = %+v", got)
	}
	// The lists of runs carry no URLs: a SQL state keeps them apart, a KV state not at all.
	if got.URLs != nil {
		t.Errorf("the list of runs carries the URLs a run names: %+v", got.URLs)
	}
	if runs, _ := s.Runs(ctx, "a", 1); len(runs) != 1 {
		t.Errorf("limit 1 gave %d", len(runs))
	}
	if last, _ := s.LastStarted(ctx, "a"); !last.Equal(t0.Add(time.Hour)) {
		t.Errorf("last started %v", last)
	}
	if next := start(t, s, "a", "cli", t0.Add(2*time.Hour)); next <= id {
		t.Errorf("run ids must grow: %d after %d", next, id)
	}
}

func testQuota(t *testing.T, b Backend) {
	s := b.Open(t)
	got := func(site, day string, n, limit int) int {
		t.Helper()
		g, err := s.ReserveQuota(ctx, site, day, n, limit)
		must(t, err)
		return g
	}
	if g := got("a", "2026-03-01", 100, 120); g != 100 {
		t.Errorf("first reservation %d, want 100", g)
	}
	if g := got("a", "2026-03-01", 100, 120); g != 20 {
		t.Errorf("second reservation %d, want the 20 left", g)
	}
	if g := got("a", "2026-03-01", 1, 120); g != 0 {
		t.Errorf("reservation past the quota: %d", g)
	}
	must(t, s.ReleaseQuota(ctx, "a", "2026-03-01", 15))
	s = b.Reopen(t, s)
	if d, _ := s.QuotaDay(ctx, "a", "2026-03-01"); d != (model.BingDay{Used: 105}) {
		t.Errorf("after a release: %+v", d)
	}
	if g := got("a", "2026-03-01", 100, 150); g != 45 {
		t.Errorf("a higher limit (config changed) grants %d, want 45", g)
	}
	if g := got("a", "2026-03-02", 10, 120); g != 10 {
		t.Errorf("a new day starts afresh: %d", g)
	}
	if g := got("b", "2026-03-01", 10, 120); g != 10 {
		t.Errorf("sites do not share a quota: %d", g)
	}
	must(t, s.MarkQuotaFull(ctx, "a", "2026-03-02"))
	s = b.Reopen(t, s)
	if g := got("a", "2026-03-02", 10, 120); g != 0 {
		t.Errorf("a full day granted %d", g)
	}
	if d, _ := s.QuotaDay(ctx, "a", "2026-03-02"); d != (model.BingDay{Used: 10, Full: true}) {
		t.Errorf("full day: %+v", d)
	}
	if d, err := s.QuotaDay(ctx, "x", "2026-03-01"); d != (model.BingDay{}) || err != nil {
		t.Errorf("unknown site: %+v %v", d, err)
	}
	must(t, s.ReleaseQuota(ctx, "b", "2026-03-01", 1000))
	if d, _ := s.QuotaDay(ctx, "b", "2026-03-01"); d.Used != 0 {
		t.Errorf("releasing more than reserved: used %d", d.Used)
	}
}

// testBingTold checks that what Bing answered of a day's quota is kept with what the day had
// used then, whether or not the day had a reservation yet, and that its latest answer counts.
func testBingTold(t *testing.T, b Backend) {
	s := b.Open(t)
	must(t, s.RecordBingLeft(ctx, "a", "2026-03-01", 50))
	s = b.Reopen(t, s)
	if d, _ := s.QuotaDay(ctx, "a", "2026-03-01"); d != (model.BingDay{Told: true, BingLeft: 50}) {
		t.Errorf("Bing's first answer of the day: %+v", d)
	}
	if g, err := s.ReserveQuota(ctx, "a", "2026-03-01", 30, 100); g != 30 || err != nil {
		t.Fatalf("reserved %d, %v", g, err)
	}
	s = b.Reopen(t, s)
	if d, _ := s.QuotaDay(ctx, "a", "2026-03-01"); d != (model.BingDay{Used: 30, Told: true, BingLeft: 50}) {
		t.Errorf("after 30 went: %+v", d)
	}
	must(t, s.RecordBingLeft(ctx, "a", "2026-03-01", 20))
	must(t, s.MarkQuotaFull(ctx, "a", "2026-03-01"))
	s = b.Reopen(t, s)
	if d, _ := s.QuotaDay(ctx, "a", "2026-03-01"); d != (model.BingDay{Used: 30, Full: true, Told: true, BingLeft: 20, UsedWhenTold: 30}) {
		t.Errorf("Bing's second answer, then its refusal: %+v", d)
	}
	if d, _ := s.QuotaDay(ctx, "a", "2026-03-02"); d != (model.BingDay{}) {
		t.Errorf("the next day knows nothing of Bing's answer: %+v", d)
	}
}
