package store_test

import (
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// startRun saves the record of a run of site starting at, and returns its id.
func startRun(t *testing.T, s *store.Store, site, trigger string, at time.Time) int64 {
	t.Helper()
	rec := &model.Record{Site: site, Trigger: trigger, StartedAt: at, Status: model.StatusRunning}
	if err := s.SaveRun(ctx, rec); err != nil || rec.ID == 0 {
		t.Fatalf("starting a run of %s: id %d, %v", site, rec.ID, err)
	}
	return rec.ID
}

func TestRuns(t *testing.T) {
	s := storetest.Open(t)
	old := startRun(t, s, "a", "schedule", t0.Add(-100*24*time.Hour))
	s.RecordRequests(ctx, "a", t0.Add(-100*24*time.Hour), []channel.Request{{Channel: "indexnow", Endpoint: "e", URLs: 1}})
	oldDay := t0.Add(-100 * 24 * time.Hour).Format(time.DateOnly)
	s.ReserveQuota(ctx, "a", oldDay, 7, 100)
	id := startRun(t, s, "a", "cli", t0)
	if id <= old {
		t.Fatalf("a run started after run %d was given id %d", old, id)
	}
	running := startRun(t, s, "a", "manual", t0.Add(time.Minute))
	rec := &model.Record{ID: id, Site: "a", Trigger: "cli", StartedAt: t0, FinishedAt: t0.Add(3 * time.Second), Status: model.StatusPartial,
		TotalURLs: 10, Channels: map[string]*model.ChannelStats{"indexnow": {Due: 3, Submitted: 2, Failed: 1,
			Endpoints: map[string]*model.EndpointStats{"e": {Requests: 2, Accepted: 1, Failed: 1, AvgResponseMS: 12.5}}}},
		Errors: []string{"HTTP 503"}}
	if err := s.SaveRun(ctx, rec); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx, "a", 10)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs = %+v, %v; want two: the record older than 90 days is gone", runs, err)
	}
	if runs[0].ID != running || runs[0].Status != model.StatusRunning || !runs[0].StartedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("newest, still running: %+v", runs[0])
	}
	got := runs[1]
	if got.ID != id || got.Status != model.StatusPartial || got.Channels["indexnow"].Endpoints["e"].AvgResponseMS != 12.5 ||
		!got.FinishedAt.Equal(rec.FinishedAt) || got.Errors[0] != "HTTP 503" {
		t.Errorf("finished run = %+v", got)
	}
	if runs, _ := s.Runs(ctx, "a", 1); len(runs) != 1 {
		t.Errorf("limit 1 gave %d", len(runs))
	}
	if stats, _ := s.DailyStats(ctx, t0.Add(-200*24*time.Hour), "a"); len(stats) != 0 {
		t.Errorf("statistics older than 90 days were kept: %+v", stats)
	}
	if d, _ := s.QuotaDay(ctx, "a", oldDay); d.Used != 0 {
		t.Errorf("the Bing quota of a day older than 90 days was kept: %d used", d.Used)
	}
}

func TestRunTimes(t *testing.T) {
	s := storetest.Open(t)
	if last, err := s.LastStarted(ctx, "a"); err != nil || !last.IsZero() {
		t.Fatalf("a site never run: %v %v", last, err)
	}
	finish := func(start time.Time, status string) {
		id := startRun(t, s, "a", "schedule", start)
		rec := &model.Record{ID: id, Site: "a", StartedAt: start, FinishedAt: start.Add(time.Minute), Status: status}
		if err := s.SaveRun(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	finish(t0, model.StatusOK)
	finish(t0.Add(time.Hour), model.StatusBudgetExhausted)
	finish(t0.Add(2*time.Hour), model.StatusPartial)
	if last, _ := s.LastStarted(ctx, "a"); !last.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("last started %v", last)
	}
	good, err := s.LastGoodRun(ctx, "a")
	if err != nil || !good.Equal(t0.Add(time.Hour+time.Minute)) {
		t.Errorf("last good run %v, %v", good, err)
	}
	if never, err := s.LastGoodRun(ctx, "b"); err != nil || !never.IsZero() {
		t.Errorf("a site never run: last good run %v, %v", never, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Error(err)
	}
}
