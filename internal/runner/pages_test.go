package runner_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// cutShort cuts the last page of the pages a state remembers of a site's sitemap short, as damage
// where the state keeps them would (a KV value cut short, or written by hand), and marks the memo
// unfinished (a read over several runs) when asked.
func cutShort(t *testing.T, st runner.State, sitemap string, unfinished bool) {
	t.Helper()
	ctx := context.Background()
	memos, err := st.SitemapMemos(ctx, "s")
	if err != nil || memos[sitemap].Sitemap == "" {
		t.Fatalf("the memo of %s: %+v, %v", sitemap, memos, err)
	}
	memo := memos[sitemap]
	pages, err := st.SitemapPages(ctx, "s", sitemap)
	if err != nil || len(pages) < 16 {
		t.Fatalf("the pages of %s: %d bytes, %v", sitemap, len(pages), err)
	}
	memo.Pages, memo.Unfinished = pages[:len(pages)-4], unfinished
	if err := st.SaveSitemapMemos(ctx, "s", []model.SitemapMemo{memo}); err != nil {
		t.Fatal(err)
	}
	if f, ok := st.(interface{ Flush(context.Context) error }); ok { // the Worker's state writes at its end
		if err := f.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// A memo whose pages are not whole pages (no run writes them so) is not used, with a warning, and
// nothing is lost: the sitemap is read whole again and its pages looked up — at once when it
// changed, or was left by a read over several runs; by the next run when it did not change.
func TestAMemoCutShort(t *testing.T) {
	for _, tc := range []struct {
		name string
		// The memo is cut short (unfinished: as a read over several runs leaves it) after a first
		// run sent /a, /b and /c (/a failing when failing is set); then the sitemap lists publish
		// (nil: unchanged), and the runs after send want — the first of them, when atOnce.
		unfinished, failing bool
		publish             []string
		want                []string
		atOnce              bool
	}{
		{"settled, the sitemap changed", false, false, []string{"/a", "/b", "/c", "/d"}, urls("/d"), true},
		{"settled, the sitemap unchanged", false, true, nil, urls("/a"), false},
		{"unfinished", true, false, []string{"/a", "/b", "/c", "/d"}, urls("/d"), true},
	} {
		for name, open := range states(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				s := newSite(t, "")
				sitemap := filepath.Join(s.dir, "sitemap.xml")
				in := &fakeChannel{name: "indexnow", batch: 10}
				if tc.failing {
					in.failing = func(d channel.Due) string {
						if strings.HasSuffix(d.URL, "/a") {
							return "HTTP 503"
						}
						return ""
					}
				}
				var warned []string
				at := time.Now()
				runAt := func() *model.Record {
					at = at.Add(time.Hour)
					r := runner.New(open(at))
					r.Warn = func(site, msg string) { warned = append(warned, msg) }
					return run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
				}
				s.publish("/a", "/b", "/c")
				runAt()
				if got := in.take(); !slices.Equal(got, urls("/a", "/b", "/c")) {
					t.Fatalf("the first run sent %v", got)
				}
				in.failing = nil
				cutShort(t, open(at.Add(30*time.Minute)), sitemap, tc.unfinished)
				if tc.publish != nil {
					s.publish(tc.publish...)
				}
				var sent [][]string // by run
				for range 3 {
					if rec := runAt(); rec.Status != model.StatusOK {
						t.Errorf("a run after the damage: %s %q", rec.Status, rec.Errors)
					}
					sent = append(sent, in.take())
				}
				if all := slices.Concat(sent...); !slices.Equal(all, tc.want) {
					t.Errorf("the runs after the damage sent %v, want %v once", sent, tc.want)
				}
				if tc.atOnce && !slices.Equal(sent[0], tc.want) {
					t.Errorf("the first run after the damage sent %v, want %v", sent[0], tc.want)
				}
				if len(warned) != 1 || !strings.Contains(warned[0], sitemap) || !strings.Contains(warned[0], "not whole pages") {
					t.Errorf("warnings: %q; want one that names the sitemap", warned)
				}
			})
		}
	}
}
