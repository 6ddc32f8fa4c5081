package store_test

import (
	"maps"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// finishRun saves a run of site that ended at end with status.
func finishRun(t *testing.T, s *store.Store, site, status string, end time.Time) {
	t.Helper()
	rec := &model.Record{ID: startRun(t, s, site, "schedule", end.Add(-time.Second)), Site: site, Trigger: "schedule",
		StartedAt: end.Add(-time.Second), FinishedAt: end, Status: status}
	if err := s.SaveRun(ctx, rec); err != nil {
		t.Fatal(err)
	}
}

// TestFleetReads checks the reads of many sites at once against the reads of one site they stand
// for, and Activity against the outcomes recorded: the days from since, failures included.
func TestFleetReads(t *testing.T) {
	s := storetest.Open(t)
	finishRun(t, s, "a", model.StatusOK, t0.Add(-time.Hour))
	finishRun(t, s, "a", model.StatusBudgetExhausted, t0.Add(-time.Minute))
	finishRun(t, s, "a", model.StatusFailed, t0)
	finishRun(t, s, "b", model.StatusOK, t0.Add(-2*time.Hour))
	finishRun(t, s, "c", model.StatusFailed, t0)
	today, yesterday := t0.Format(time.DateOnly), t0.AddDate(0, 0, -1).Format(time.DateOnly)
	s.ReserveQuota(ctx, "a", today, 7, 100)
	s.RecordBingLeft(ctx, "a", today, 40)
	s.ReserveQuota(ctx, "b", yesterday, 5, 100)
	s.MarkQuotaFull(ctx, "c", today)

	ids := []string{"a", "b", "c", "d"}
	last, err := s.LastGoodRuns(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	quotas, err := s.QuotaDays(ctx, ids, today)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		one, _ := s.LastGoodRun(ctx, id)
		if !last[id].Equal(one) {
			t.Errorf("LastGoodRuns[%s] = %v, LastGoodRun = %v", id, last[id], one)
		}
		d, _ := s.QuotaDay(ctx, id, today)
		if quotas[id] != d {
			t.Errorf("QuotaDays[%s] = %+v, QuotaDay = %+v", id, quotas[id], d)
		}
	}
	started, err := s.LastStartedAll(ctx)
	if err != nil || len(started) != 3 {
		t.Fatalf("LastStartedAll: %v, %v; want the 3 sites that ran", started, err)
	}
	for _, id := range ids {
		one, _ := s.LastStarted(ctx, id)
		if all, ok := started[id]; !all.Equal(one) || ok == one.IsZero() {
			t.Errorf("LastStartedAll[%s] = %v (%v), LastStarted = %v", id, all, ok, one)
		}
	}
	if _, ok := last["c"]; ok {
		t.Errorf("c, which never ran well, has a last good run: %v", last["c"])
	}

	urls := func(n int) []channel.Due {
		due := make([]channel.Due, n)
		for i := range due {
			due[i].Hash = int64(i + 1)
		}
		return due
	}
	s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: urls(3), Delivered: true})
	s.RecordOutcome(ctx, "a", t0.AddDate(0, 0, -1), channel.Outcome{Channel: "bing", URLs: urls(2), Err: "HTTP 503"})
	s.RecordOutcome(ctx, "b", t0.AddDate(0, 0, -2), channel.Outcome{Channel: "indexnow", URLs: urls(9), Delivered: true})
	s.RecordRequests(ctx, "c", t0, []channel.Request{{Channel: "indexnow", Endpoint: "https://e/indexnow", URLs: 4, Accepted: true}})
	got, err := s.Activity(ctx, t0.AddDate(0, 0, -1))
	if want := map[string]int64{"a": 5}; err != nil || !maps.Equal(got, want) {
		t.Errorf("Activity since yesterday = %v, %v; want %v (b's URLs are older, c's are an endpoint's requests)", got, err, want)
	}
}
