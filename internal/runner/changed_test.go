package runner_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// builtSite serves the pages of https://a.example as a static build writes them: each build
// changes what no reader sees (asset hashes, a nonce, a build id), and an edit what one does. It
// counts the GETs of each page, and answers 500 for the pages told to fail.
type builtSite struct {
	pagesOfA
	mu      sync.Mutex
	build   int
	edits   map[string]int
	failing map[string]bool
	gets    map[string]int
}

func newBuiltSite() *builtSite {
	b := &builtSite{edits: map[string]int{}, failing: map[string]bool{}, gets: map[string]int{}}
	b.pages = map[string]func(http.ResponseWriter){}
	return b
}

// publish makes build n of paths, with edits (path: edit number) on top of those before, and
// returns the sitemap entries of the build, each stamped with the build's time when stamp.
func (b *builtSite) publish(n int, paths []string, stamp bool, edits map[string]int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.build = n
	for p, e := range edits {
		b.edits[p] = e
	}
	var entries []string
	for _, p := range paths {
		b.pages[p] = b.page(p)
		if stamp {
			p += time.Date(2026, 11, 1, n, 0, 0, 0, time.UTC).Format(" 2006-01-02T15:04:05Z")
		}
		entries = append(entries, p)
	}
	return entries
}

func (b *builtSite) page(path string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.gets[path]++
		if b.failing[path] {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, `<!doctype html><html><head><title>Page %s</title><script src="/_next/%06x.js" nonce="n%d"></script></head>`+
			`<body><nav>Home</nav><main><h1>%s</h1><p>Text, edit %d.</p></main>`+
			`<script id="__NEXT_DATA__" type="application/json">{"buildId":"b%d"}</script></body></html>`,
			path, b.build, b.build*7919, path, b.edits[path], b.build)
	}
}

// fetched returns how many times each page was fetched since the last call.
func (b *builtSite) fetched() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	got := b.gets
	b.gets = map[string]int{}
	return got
}

// contentRunner returns a runner at at whose content checks fetch from b.
func contentRunner(open func(time.Time) runner.State, at time.Time, b *builtSite) *runner.Runner {
	r := runner.New(open(at))
	r.Now = func() time.Time { return at }
	r.Client = &http.Client{Transport: b}
	r.Pages = func(*config.Site, []channel.Channel) channel.PageReader {
		return preflight.New(r.Client, "sitepush-test")
	}
	return r
}

func paths(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("/p%d", i)
	}
	return out
}

// TestAStampedSiteSendsWhatChanged: a sitemap whose every lastmod is the build's time is checked
// by content. The first run sends every page; a build that edited 2 pages sends those 2, and
// counts the rest the same; a build that edited none sends none; each page is fetched at most
// once a run. On the SQL store and on the Worker's KV state.
func TestAStampedSiteSendsWhatChanged(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			b, s, in := newBuiltSite(), newSite(t, ""), &fakeChannel{name: "indexnow", batch: 100}
			all := paths(20)
			opt := runner.Options{Channels: []channel.Channel{in}}
			at := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
			for n, tc := range []struct {
				edits   map[string]int
				want    []string
				changed int
			}{
				{nil, urls(all...), 0},
				{map[string]int{"/p3": 1, "/p17": 1}, urls("/p17", "/p3"), 2},
				{nil, nil, 0},
			} {
				s.publish(b.publish(n, all, true, tc.edits)...)
				at = at.Add(time.Hour)
				rec := run(t, contentRunner(open, at, b), s, opt)
				if got := in.take(); !slices.Equal(got, slices.Sorted(slices.Values(tc.want))) {
					t.Fatalf("build %d: sent %v, want %v (record %+v)", n, got, tc.want, rec.Changes)
				}
				for p, k := range b.fetched() {
					if k > 1 {
						t.Fatalf("build %d: %s fetched %d times in one run", n, p, k)
					}
				}
				if c := rec.Changes; c == nil || c.Changed != tc.changed || n > 0 && c.Same != 20-tc.changed || c.Checked != 20 {
					t.Fatalf("build %d: changes %+v, want %d changed of 20 checked", n, c, tc.changed)
				}
			}
		})
	}
}

// TestPagesWithoutLastmodGoRound: without lastmods, the checks go round the pages,
// checksPerRun a run; an edited page is sent within a round, once, and nothing else is. A page
// whose check fails is never taken for the same, nor sent, until a check reads it.
func TestPagesWithoutLastmodGoRound(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			b, s, in := newBuiltSite(), newSite(t, "    changes: {checksPerRun: 5}\n"), &fakeChannel{name: "indexnow", batch: 100}
			all := paths(20)
			opt := runner.Options{Channels: []channel.Channel{in}}
			at := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
			runOnce := func() *model.Record {
				at = at.Add(time.Hour)
				rec := run(t, contentRunner(open, at, b), s, opt)
				if n := len(b.fetched()); n > 5 {
					t.Fatalf("a run fetched %d pages, more than checksPerRun 5", n)
				}
				return rec
			}
			s.publish(b.publish(0, all, false, nil)...)
			runOnce()
			if got := in.take(); len(got) != 20 {
				t.Fatalf("the first run sent %d URLs, want the 20 new", len(got))
			}
			for range 4 { // the rest of the first round: each page checked once, nothing sent
				runOnce()
				if got := in.take(); len(got) != 0 {
					t.Fatalf("a run of nothing edited sent %v", got)
				}
			}
			b.publish(0, all, false, map[string]int{"/p4": 1, "/p11": 1})
			b.failing["/p11"] = true
			var got []string
			for range 4 {
				runOnce()
				got = append(got, in.take()...)
			}
			if !slices.Equal(got, urls("/p4")) {
				t.Fatalf("a round after /p4 was edited and /p11 edited but failing: sent %v, want only /p4", got)
			}
			b.failing["/p11"] = false
			for range 4 {
				runOnce()
				got = append(got, in.take()...)
			}
			if slices.Sort(got); !slices.Equal(got, urls("/p11", "/p4")) {
				t.Fatalf("once /p11 answers: sent %v over two rounds, want /p4 and /p11 once each", got)
			}
		})
	}
}

// TestLastmodsThatMoveOneByOneAreTrusted: a sitemap whose URLs mostly share one lastmod is
// checked by content on its first read, as a build's stamp; when a later read finds one page's
// lastmod moved and the others' kept since its memo, its lastmods are kept up to date page by
// page: the page is sent by its lastmod, its content unchanged. So too when the memo is gone,
// against the lastmods the catalogue recorded.
func TestLastmodsThatMoveOneByOneAreTrusted(t *testing.T) {
	for _, forget := range []bool{false, true} {
		for name, open := range states(t) {
			t.Run(fmt.Sprintf("%s/memo forgotten %t", name, forget), func(t *testing.T) {
				b, s, in := newBuiltSite(), newSite(t, ""), &fakeChannel{name: "indexnow", batch: 100}
				all := paths(20)
				opt := runner.Options{Channels: []channel.Channel{in}}
				// After the wall clock: the KV state uses a memo from two minutes after it was written.
				at := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
				entries := b.publish(0, all, false, nil)
				for i := range entries {
					entries[i] += " 2026-02-01"
				}
				s.publish(entries...)
				rec := run(t, contentRunner(open, at, b), s, opt)
				if got := in.take(); len(got) != 20 || rec.Changes == nil {
					t.Fatalf("the first run: sent %d URLs, changes %+v; want the 20, checked by content", len(got), rec.Changes)
				}
				entries[3] = "/p3 2026-02-02"
				s.publish(entries...)
				st := open(at.Add(time.Hour))
				if forget {
					if err := st.SaveSitemapMemos(context.Background(), "s", nil); err != nil {
						t.Fatal(err)
					}
				}
				rec = run(t, contentRunner(func(time.Time) runner.State { return st }, at.Add(time.Hour), b), s, opt)
				if got := in.take(); !slices.Equal(got, urls("/p3")) {
					t.Fatalf("one lastmod moved of 20 sharing one, memo forgotten %t: sent %v, want /p3 alone (record %+v)", forget, got, rec.Changes)
				}
			})
		}
	}
}
