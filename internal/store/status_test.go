package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

func TestRunTimes(t *testing.T) {
	s := storetest.Open(t)
	if last, err := s.LastStarted(ctx, "a"); err != nil || !last.IsZero() {
		t.Fatalf("a site never run: %v %v", last, err)
	}
	finish := func(start time.Time, status string) {
		id, err := s.StartRun(ctx, "a", "schedule", start)
		if err != nil {
			t.Fatal(err)
		}
		rec := &model.Record{ID: id, Site: "a", StartedAt: start, FinishedAt: start.Add(time.Minute), Status: status}
		if err := s.FinishRun(ctx, rec); err != nil {
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

func TestLeased(t *testing.T) {
	s := storetest.Open(t)
	s.AcquireLease(ctx, "a", "run-1", t0, 15*time.Second)
	if ok, err := s.Leased(ctx, "a", t0.Add(time.Second)); !ok || err != nil {
		t.Errorf("a held lease: %v %v", ok, err)
	}
	if ok, _ := s.Leased(ctx, "a", t0.Add(time.Minute)); ok {
		t.Error("an expired lease is held")
	}
	if ok, _ := s.Leased(ctx, "b", t0); ok {
		t.Error("a site never leased is held")
	}
}

func TestChannelDaysAndLastSuccess(t *testing.T) {
	s := storetest.Open(t)
	due := func(n int) []channel.Due { return make([]channel.Due, n) }
	record := func(site string, at time.Time, o channel.Outcome) {
		for i := range o.URLs {
			o.URLs[i].Hash = int64(i + 1)
		}
		if err := s.RecordOutcome(ctx, site, at, o); err != nil {
			t.Fatal(err)
		}
	}
	yesterday := t0.Add(-24 * time.Hour)
	record("a", yesterday, channel.Outcome{Channel: "indexnow", URLs: due(10), Delivered: true})
	record("a", t0, channel.Outcome{Channel: "indexnow", URLs: due(4), Delivered: true})
	record("a", t0.Add(time.Minute), channel.Outcome{Channel: "indexnow", URLs: due(2), Err: "HTTP 503"})
	record("b", t0, channel.Outcome{Channel: "indexnow", URLs: due(5), Delivered: true})
	record("b", t0, channel.Outcome{Channel: "bing", URLs: due(3), Delivered: true})
	s.RecordRequests(ctx, "a", t0, []channel.Request{{Channel: "indexnow", Endpoint: "https://e", URLs: 4, Accepted: true}})

	all, err := s.ChannelDays(ctx, yesterday, "")
	want := []store.ChannelDay{
		{Day: "2026-02-28", Channel: "indexnow", Total: 10, Successful: 10},
		{Day: "2026-03-01", Channel: "bing", Total: 3, Successful: 3},
		{Day: "2026-03-01", Channel: "indexnow", Total: 11, Successful: 9, Failed: 2},
	}
	if err != nil || !slices.Equal(all, want) {
		t.Errorf("every site: %+v, %v", all, err)
	}
	one, _ := s.ChannelDays(ctx, t0, "a")
	if !slices.Equal(one, []store.ChannelDay{{Day: "2026-03-01", Channel: "indexnow", Total: 6, Successful: 4, Failed: 2}}) {
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
