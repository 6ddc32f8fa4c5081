package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

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
