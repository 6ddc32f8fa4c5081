package store_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestSiteDaysByChannel: each site's days are told per channel, never summed over the channels —
// the same page accepted by IndexNow and Bing is one page, which a sum would count twice — and
// an endpoint's requests are not URLs.
func TestSiteDaysByChannel(t *testing.T) {
	s := storetest.Open(t)
	urls := func(n int) []channel.Due {
		due := make([]channel.Due, n)
		for i := range due {
			due[i].Hash = int64(i + 1)
		}
		return due
	}
	yesterday := t0.AddDate(0, 0, -1)
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: urls(17), Delivered: true}))
	must(t, s.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "bing", URLs: urls(10), Delivered: true}))
	must(t, s.RecordOutcome(ctx, "a", yesterday, channel.Outcome{Channel: "bing", URLs: urls(2), Err: "HTTP 503"}))
	must(t, s.RecordOutcome(ctx, "b", t0.AddDate(0, 0, -5), channel.Outcome{Channel: "indexnow", URLs: urls(9), Delivered: true}))
	must(t, s.RecordRequests(ctx, "a", t0, []channel.Request{{Channel: "indexnow", Endpoint: "https://e/indexnow", URLs: 17, Accepted: true}}))
	got, err := s.SiteDays(ctx, yesterday)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(x, y store.SiteDay) int {
		return cmp.Or(cmp.Compare(x.Day, y.Day), cmp.Compare(x.Channel, y.Channel))
	})
	today, before := t0.Format(time.DateOnly), yesterday.Format(time.DateOnly)
	want := []store.SiteDay{
		{Day: before, Site: "a", Channel: "bing", Failed: 2},
		{Day: today, Site: "a", Channel: "bing", Successful: 10},
		{Day: today, Site: "a", Channel: "indexnow", Successful: 17},
	}
	if !slices.Equal(got, want) {
		t.Errorf("SiteDays since yesterday = %+v\nwant %+v", got, want)
	}
}
