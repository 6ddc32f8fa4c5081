package runner_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
)

// mixedChannel answers each URL by its path: /noindex is held back by a preflight, /held by a
// quota, /fail fails; the others are accepted. It takes removal notices, as IndexNow does.
type mixedChannel struct{}

func (mixedChannel) Name() string { return "indexnow" }

func (mixedChannel) Selection(context.Context) channel.Selection {
	return channel.Selection{Removals: true}
}

func (mixedChannel) Deliver(ctx context.Context, q *channel.Queue, rep channel.Reporter) error {
	due, err := q.Slice(ctx, 0, q.Len())
	if err != nil {
		return err
	}
	for _, d := range due {
		o := channel.Outcome{Channel: "indexnow", URLs: []channel.Due{d}, Delivered: true}
		switch strings.TrimPrefix(d.URL, "https://a.example") {
		case "/noindex":
			o = channel.Outcome{Channel: "indexnow", URLs: []channel.Due{d}, Preflight: &channel.Preflight{Reason: channel.NotNoindex, Detail: "noindex"}}
		case "/held":
			rep.HeldBack("indexnow", 1, "the daily quota is spent")
			continue
		case "/fail":
			o = channel.Outcome{Channel: "indexnow", URLs: []channel.Due{d}, Err: "HTTP 500"}
		}
		if err := rep.Finished(o); err != nil {
			return err
		}
	}
	return nil
}

// TestTheCountsAddUp: a channel's due URLs are submitted, failed, held, ineligible or left, in
// every run — one with a removal notice, a first run's backlog, a baseline, a preflight and a
// quota; one whose backlog waits for a whole read, which is not a run stopped before its end —
// and the CI's dry run counts as due what the run then finds due, its removal notice included.
func TestTheCountsAddUp(t *testing.T) {
	recent := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)
	f := newFiles(t)
	f.mu.Lock()
	f.by["/old.xml"] = urlset("/same 2026-01-01", "/gone 2026-01-01")
	f.by["/s.xml"] = urlset("/same 2026-01-01", "/old-1 2026-01-01", "/old-2 2026-01-01",
		"/noindex "+recent, "/held "+recent, "/fail "+recent, "/ok "+recent, "/new "+recent)
	f.mu.Unlock()
	base := mustBaseline(t, f.url("/old.xml"))
	answers := &siteAnswers{status: map[string]int{"/gone": http.StatusNotFound}}
	for _, tc := range []struct {
		name     string
		sitemaps []string
		want     model.ChannelStats
	}{
		{"every sitemap read", []string{f.url("/s.xml")},
			model.ChannelStats{Due: 6, Submitted: 3, Failed: 1, Held: 1, Ineligible: 1, Backlog: 2, Baseline: 1}},
		{"a sitemap unread: the backlog waits", []string{f.url("/s.xml"), f.url("/missing.xml")},
			model.ChannelStats{Due: 7, Left: 7, Baseline: 1}},
	} {
		s := newSite(t, "    backlog: 168h\n")
		s.site.Sitemaps = tc.sitemaps
		var due [2]int
		for i, dryRun := range []bool{true, false} {
			st, err := store.Open(context.Background(), store.Memory)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			r := runner.New(st)
			r.Client = &http.Client{Transport: answers}
			rec := run(t, r, s, runner.Options{Channels: []channel.Channel{mixedChannel{}}, Baseline: base, DryRun: dryRun})
			got := rec.Channels["indexnow"]
			due[i] = got.Due
			if dryRun {
				continue
			}
			// URLs left by what happened (a first run waiting for a whole read) stop no run: only
			// its budget or a signal does, and the next run then goes on where it stopped.
			if rec.Stopped {
				t.Errorf("%s: the run is recorded as stopped before its end, with no budget or signal to stop it", tc.name)
			}
			got.Endpoints, got.IneligibleBy = nil, nil
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("%s: %+v; want %+v", tc.name, *got, tc.want)
			}
			if got.Due != got.Submitted+got.Failed+got.Held+got.Ineligible+got.Left {
				t.Errorf("%s: due %d is not submitted + failed + held + ineligible + left: %+v", tc.name, got.Due, *got)
			}
		}
		if due[0] != due[1] {
			t.Errorf("%s: the dry run found %d due, the run %d", tc.name, due[0], due[1])
		}
	}
}
