package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestARunNamesItsURLs checks that the record names each URL a channel answered with its outcome
// — the preflight's reason of one held back, with what it found ("status: HTTP 404"), the engine's answer of one that failed, cut to a
// few hundred bytes — what needs a fix first, and at most 1,000 per channel and outcome, while
// the counters count them all.
func TestARunNamesItsURLs(t *testing.T) {
	s := newSite(t, "")
	pages := []string{"/ok", "/noindex", "/gone", "/robots", "/bad"}
	for i := range 1005 {
		pages = append(pages, fmt.Sprintf("/p%d", i))
	}
	s.publish(pages...)
	answer := "HTTP 400 from https://bing.example: " + strings.Repeat("é", 300)
	ch := scripted{func(q *channel.Queue, rep channel.Reporter) error {
		due, err := q.Slice(context.Background(), 0, q.Len())
		if err != nil {
			return err
		}
		for _, d := range due {
			o := channel.Outcome{Channel: "bing", URLs: []channel.Due{d}, Delivered: true}
			switch d.URL {
			case urls("/noindex")[0]:
				o.Delivered, o.Preflight = false, &channel.Preflight{Reason: channel.NotNoindex, Detail: `<meta name="robots" content="noindex">`}
			case urls("/gone")[0]:
				o.Delivered, o.Preflight = false, &channel.Preflight{Reason: channel.NotStatus, Detail: "HTTP 404"}
			case urls("/robots")[0]:
				o.Delivered, o.Preflight = false, &channel.Preflight{Reason: channel.NotRobots}
			case urls("/bad")[0]:
				o = channel.Outcome{Channel: "bing", URLs: []channel.Due{d}, Err: answer}
			}
			if err := rep.Finished(o); err != nil {
				return err
			}
		}
		return nil
	}}
	rec := run(t, runner.New(storetest.Open(t)), s, runner.Options{Channels: []channel.Channel{ch}})
	if st := rec.Channels["bing"]; st.Submitted != 1006 || st.Failed != 1 || st.Ineligible != 3 {
		t.Fatalf("counters %+v; want 1006 submitted, 1 failed, 3 ineligible", st)
	}
	if len(rec.URLs) != 1004 {
		t.Fatalf("the record names %d URLs; want 1 failed, 3 ineligible and 1,000 submitted", len(rec.URLs))
	}
	failed := rec.URLs[0]
	if failed.Channel != "bing" || failed.URL != urls("/bad")[0] || failed.Outcome != model.URLFailed ||
		!strings.HasPrefix(failed.Detail, "HTTP 400 from https://bing.example: é") || len(failed.Detail) > 300 || !strings.HasSuffix(failed.Detail, "é…") {
		t.Errorf("the URL that failed: %+v (%d bytes of detail); want its engine's answer, cut at 300 bytes on a rune's edge", failed, len(failed.Detail))
	}
	for i, want := range []model.RunURL{
		{Channel: "bing", URL: urls("/noindex")[0], Outcome: model.URLIneligible, Detail: `noindex: <meta name="robots" content="noindex">`},
		{Channel: "bing", URL: urls("/robots")[0], Outcome: model.URLIneligible, Detail: "robots"},
		{Channel: "bing", URL: urls("/gone")[0], Outcome: model.URLIneligible, Detail: "status: HTTP 404"},
	} {
		if held := rec.URLs[1+i]; held != want {
			t.Errorf("a URL a preflight held back: %+v; want %+v", held, want)
		}
	}
	for _, u := range rec.URLs[4:] {
		if u.Outcome != model.URLSubmitted || u.Detail != "" {
			t.Fatalf("after the failed and the held back, the submitted; got %+v", u)
		}
	}
}
