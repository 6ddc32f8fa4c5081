package runner_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// A run remembers the sitemaps it read, once settled: the next one does not read a file that did
// not change, yet finds a URL whose last attempt failed, and a channel turned on later still has
// a first run of every URL.
func TestUnchangedSitemaps(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	r := runner.New(st)
	s := newSite(t, "")
	in := &fakeChannel{name: "indexnow", batch: 10}
	opt := runner.Options{Channels: []channel.Channel{in}}
	s.publish("/a 2026-01-01", "/b 2026-01-01", "/c")
	run(t, r, s, opt)
	if got := in.take(); !slices.Equal(got, urls("/a", "/b", "/c")) {
		t.Fatalf("first run sent %v", got)
	}
	if memos, err := st.SitemapMemos(ctx, "s"); err != nil || len(memos) != 1 {
		t.Fatalf("memos after a settled run: %+v, %v", memos, err)
	}
	rec := run(t, r, s, opt)
	if got := in.take(); len(got) != 0 || rec.TotalURLs != 3 || rec.Channels["indexnow"].Skipped != 3 || rec.Sitemaps.Read != 1 {
		t.Errorf("a rerun of an unchanged file sent %v, %d URLs, %+v", got, rec.TotalURLs, rec.Channels["indexnow"])
	}

	// A new page that fails: settled all the same, its failure found again from its state.
	s.publish("/a 2026-01-01", "/b 2026-01-01", "/c", "/d")
	in.failing = func(d channel.Due) string { return "HTTP 503" }
	run(t, r, s, opt)
	if got := in.take(); !slices.Equal(got, urls("/d")) {
		t.Fatalf("a run with one new page sent %v", got)
	}
	if memos, err := st.SitemapMemos(ctx, "s"); err != nil || memos[filepath.Join(s.dir, "sitemap.xml")].URLs != 4 {
		t.Fatalf("a failure is settled: memos %+v, %v", memos, err)
	}
	in.failing = nil
	rec = run(t, r, s, opt)
	if got := in.take(); !slices.Equal(got, urls("/d")) || rec.Channels["indexnow"].Due != 1 || rec.Channels["indexnow"].Skipped != 3 {
		t.Errorf("the failed URL of an unchanged file: sent %v, %+v", got, rec.Channels["indexnow"])
	}

	// The same bytes, touched: read, not diffed.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(s.dir, "sitemap.xml"), later, later); err != nil {
		t.Fatal(err)
	}
	rec = run(t, r, s, opt)
	if got := in.take(); len(got) != 0 || rec.TotalURLs != 4 {
		t.Errorf("the same bytes again: sent %v, %d URLs", got, rec.TotalURLs)
	}

	// A channel turned on later: its first run has every URL.
	bing := &fakeChannel{name: "bing", batch: 10}
	run(t, r, s, runner.Options{Channels: []channel.Channel{in, bing}})
	if got, sent := bing.take(), in.take(); !slices.Equal(got, urls("/a", "/b", "/c", "/d")) || len(sent) != 0 {
		t.Errorf("a channel turned on later got %v (and indexnow %v)", got, sent)
	}
	// A changed page of a file that changed: only it is sent, on both.
	s.publish("/a 2026-01-01", "/b 2026-02-01", "/c", "/d")
	run(t, r, s, runner.Options{Channels: []channel.Channel{in, bing}})
	if got, sent := bing.take(), in.take(); !slices.Equal(got, urls("/b")) || !slices.Equal(sent, urls("/b")) {
		t.Errorf("one page changed: bing got %v, indexnow %v", got, sent)
	}
}

// resubmitAfter finds, from their delivery state, the URLs of an unchanged file sent long enough
// ago.
func TestUnchangedSitemapsResubmit(t *testing.T) {
	st := storetest.Open(t)
	r := runner.New(st)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	r.Now = func() time.Time { return now }
	s := newSite(t, "    resubmitAfter: 720h\n")
	in := &fakeChannel{name: "indexnow", batch: 10}
	opt := runner.Options{Channels: []channel.Channel{in}}
	s.publish("/a 2026-01-01", "/b")
	run(t, r, s, opt)
	in.take()
	now = now.Add(24 * time.Hour)
	if run(t, r, s, opt); len(in.take()) != 0 {
		t.Fatal("a rerun a day later sent URLs")
	}
	now = now.Add(30 * 24 * time.Hour)
	if rec := run(t, r, s, opt); !slices.Equal(in.take(), urls("/a", "/b")) || rec.Channels["indexnow"].Due != 2 {
		t.Errorf("31 days later: %+v", rec.Channels["indexnow"])
	}
}

// pageBytes is the size of a page in a memo, as the runner writes it: its hash, then its lastmod.
const pageBytes = 16

// The pages a run learns are set aside in a temporary file until the run settles, then read back
// whole and each in its place — or kept in memory when no temporary file can be made. Either way
// the file is gone after the run, and the next run of unchanged files sends nothing.
func TestPagesSetAside(t *testing.T) {
	ctx := context.Background()
	for _, tmp := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		t.Setenv("TMPDIR", tmp)
		st := storetest.Open(t)
		dir := t.TempDir()
		sizes := map[string]int{"a.xml": 3, "b.xml": 1, "c.xml": 5}
		for name, n := range sizes {
			doc := "<urlset>"
			for i := range n {
				doc += fmt.Sprintf("<url><loc>https://a.example/%s/%d</loc></url>", name, i)
			}
			os.WriteFile(filepath.Join(dir, name), []byte(doc+"</urlset>"), 0o644)
		}
		s := siteIn(t, dir, "a.xml, b.xml, c.xml", "")
		in := &fakeChannel{name: "indexnow", batch: 4}
		r := runner.New(st)
		run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
		if got := in.take(); len(got) != 9 {
			t.Fatalf("first run sent %d URLs", len(got))
		}
		for name, n := range sizes {
			pages, err := st.SitemapPages(ctx, "s", filepath.Join(dir, name))
			if err != nil || len(pages) != n*pageBytes {
				t.Fatalf("TMPDIR %s: %s's pages: %d bytes, %v", tmp, name, len(pages), err)
			}
			for i := pageBytes; i < len(pages); i += pageBytes {
				if int64(binary.LittleEndian.Uint64(pages[i:])) <= int64(binary.LittleEndian.Uint64(pages[i-pageBytes:])) {
					t.Fatalf("%s's pages are not the file's, sorted by hash", name)
				}
			}
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("left in TMPDIR: %v", left)
		}
		rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
		if got := in.take(); len(got) != 0 || rec.TotalURLs != 9 {
			t.Errorf("TMPDIR %s: a rerun of unchanged files sent %v, read %d URLs", tmp, got, rec.TotalURLs)
		}
	}
}

// lookedUp is the real store, counting the pages a run looks up in its catalogue.
type lookedUp struct {
	*store.Store
	pages int
}

func (s *lookedUp) SyncCatalog(ctx context.Context, site string, now time.Time, pages []channel.Page, channels []string, dryRun bool) ([]model.DeliveryState, error) {
	s.pages += len(pages)
	return s.Store.SyncCatalog(ctx, site, now, pages, channels, dryRun)
}

// A sitemap of more pages than the sitemaps.org limit, and more than a run holds at once, is
// remembered as any other: read again unchanged, it has no page looked up, as a small one; with
// two pages changed, those two. A URL it lists twice, far apart, counts once.
func TestABigSitemapIsRemembered(t *testing.T) {
	for _, n := range []int{10_000, 120_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			st := &lookedUp{Store: storetest.Open(t)}
			r := runner.New(st)
			s := newSite(t, "")
			in := &fakeChannel{name: "indexnow", batch: 50_000}
			opt := runner.Options{Channels: []channel.Channel{in}}
			entries := make([]string, n, n+1)
			for i := range entries {
				entries[i] = fmt.Sprintf("/p/%d 2026-01-01", i)
			}
			s.publish(append(entries, entries[0])...)
			if rec := run(t, r, s, opt); len(in.take()) != n || rec.TotalURLs != n {
				t.Fatalf("first run: %d URLs; want %d", rec.TotalURLs, n)
			}
			memos, err := st.SitemapMemos(context.Background(), "s")
			if memo := memos[filepath.Join(s.dir, "sitemap.xml")]; err != nil || memo.URLs != n {
				t.Fatalf("the memo of the sitemap: %+v, %v; want one of %d URLs", memo, err, n)
			}

			// The same bytes, touched: read again, its pages found as remembered.
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(s.dir, "sitemap.xml"), later, later); err != nil {
				t.Fatal(err)
			}
			st.pages = 0
			rec := run(t, r, s, opt)
			if got := in.take(); len(got) != 0 || st.pages != 0 || rec.TotalURLs != n || rec.Channels["indexnow"].Skipped != n {
				t.Errorf("read again unchanged: sent %d, %d pages looked up, %d URLs, %+v; want none sent, none looked up, %d skipped",
					len(got), st.pages, rec.TotalURLs, rec.Channels["indexnow"], n)
			}

			entries[1], entries[n-1] = "/p/1 2026-02-01", fmt.Sprintf("/p/%d 2026-02-01", n-1)
			s.publish(append(entries, entries[0])...)
			st.pages = 0
			rec = run(t, r, s, opt)
			if got := in.take(); !slices.Equal(got, urls("/p/1", fmt.Sprintf("/p/%d", n-1))) || st.pages != 2 || rec.Channels["indexnow"].Skipped != n-2 {
				t.Errorf("two pages changed: sent %v, %d pages looked up, %+v", got, st.pages, rec.Channels["indexnow"])
			}
		})
	}
}
