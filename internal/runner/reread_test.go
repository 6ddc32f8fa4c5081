package runner_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// files is a web server of sitemaps the test can change between runs.
type files struct {
	mu  sync.Mutex
	srv *httptest.Server
	by  map[string]string
}

func newFiles(t *testing.T) *files {
	f := &files{by: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		body, ok := f.by[r.URL.Path]
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *files) url(path string) string { return f.srv.URL + path }

// set serves path: an index of the paths given when index is set, else a urlset of the pages
// (paths on https://a.example).
func (f *files) set(path string, index bool, items ...string) {
	var b strings.Builder
	if index {
		b.WriteString("<sitemapindex>")
		for _, it := range items {
			fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>", f.url(it))
		}
		b.WriteString("</sitemapindex>")
	} else {
		b.WriteString("<urlset>")
		for _, it := range items {
			fmt.Fprintf(&b, "<url><loc>%s</loc></url>", it)
		}
		b.WriteString("</urlset>")
	}
	f.mu.Lock()
	f.by[path] = b.String()
	f.mu.Unlock()
}

// limited returns the options of a run whose budget ends at its limit-th sitemap request.
func limited(r *runner.Runner, limit int64, chans ...channel.Channel) runner.Options {
	budget, spend := context.WithCancelCause(context.Background())
	r.Client = &http.Client{Transport: &countedClient{limit: limit, spend: spend}}
	return runner.Options{Channels: chans, Budget: budget}
}

// TestNestedIndexesOverSeveralRuns: a read over several runs remembers an index read whole with
// every sitemap below it, so that a root index of sub-indexes costs one file a run, not one a
// sub-index. Each run may make 4 requests: 13 files (a root, 6 sub-indexes, 6 sitemaps) are read
// in a few runs, and every page goes.
func TestNestedIndexesOverSeveralRuns(t *testing.T) {
	f := newFiles(t)
	var subs, want []string
	for i := range 6 {
		sub, child := fmt.Sprintf("/sub-%d.xml", i), fmt.Sprintf("/child-%d.xml", i)
		subs = append(subs, sub)
		f.set(sub, true, child)
		page := fmt.Sprintf("https://a.example/p/%d", i)
		f.set(child, false, page)
		want = append(want, page)
	}
	f.set("/index.xml", true, subs...)
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{f.url("/index.xml")}
	ch := &fakeChannel{name: "indexnow", batch: 100}
	var sent []string
	for range 10 {
		run(t, r, s, limited(r, 5, ch))
		sent = append(sent, ch.take()...)
	}
	slices.Sort(sent)
	if !slices.Equal(sent, want) {
		t.Errorf("after 10 runs of 4 requests each, sent %v; want the 6 pages of the 13 files", sent)
	}
}

// TestARemovedSitemapIsNotTakenFromMemory: a sitemap taken out of the configuration while a read
// goes on is not carried on: its pages, read by the unfinished read, are not sent.
func TestARemovedSitemapIsNotTakenFromMemory(t *testing.T) {
	f := newFiles(t)
	f.set("/a.xml", false, "https://a.example/staging/1", "https://a.example/staging/2")
	f.set("/b.xml", false, "https://a.example/b")
	f.set("/c.xml", false, "https://a.example/c")
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{f.url("/a.xml"), f.url("/b.xml"), f.url("/c.xml")}
	ch := &fakeChannel{name: "indexnow", batch: 100}
	// a.xml is read whole, b.xml spends the budget: nothing is sent.
	run(t, r, s, limited(r, 2, ch))
	if got := ch.take(); len(got) != 0 {
		t.Fatalf("the cut run sent %v", got)
	}
	s.site.Sitemaps = []string{f.url("/b.xml"), f.url("/c.xml")}
	r.Client = nil
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); !slices.Equal(got, urls("/b", "/c")) {
		t.Errorf("with a.xml taken out of the configuration, the next run sent %v; want only b.xml's and c.xml's", got)
	}
}

// TestChosenURLsWaitForAFirstReadOverSeveralRuns: a channel's first run with a backlog other
// than all, waiting for a read over several runs to reach its end, is not undone by chosen URLs
// sent meanwhile: they are refused (ErrFirstRunPending), and the run that ends the read keeps
// every URL already there back.
func TestChosenURLsWaitForAFirstReadOverSeveralRuns(t *testing.T) {
	f := newFiles(t)
	f.set("/a.xml", false, "https://a.example/a1", "https://a.example/a2")
	f.set("/b.xml", false, "https://a.example/b1", "https://a.example/b2")
	r := runner.New(storetest.Open(t))
	s := newSite(t, "    backlog: none\n    sitemap: {retries: 0}\n")
	s.site.Sitemaps = []string{f.url("/a.xml"), f.url("/b.xml")}
	ch := &fakeChannel{name: "indexnow", batch: 100}
	run(t, r, s, limited(r, 2, ch)) // the first run: a.xml read whole, then cut; it waits
	r.Client = nil
	// A page of the site, chosen: refused (ErrFirstRunPending) would be right, or sent without
	// ending the first run.
	_, err := r.Run(context.Background(), s.site, runner.Options{Trigger: "manual", Channels: []channel.Channel{ch}, URLs: urls("/a1")})
	if err != nil && !errors.Is(err, runner.ErrFirstRunPending) {
		t.Fatal(err)
	}
	chosen := ch.take()
	run(t, r, s, runner.Options{Channels: []channel.Channel{ch}})
	if got := ch.take(); len(got) != 0 {
		t.Errorf("backlog none: the run that ended the first read sent %v (the chosen URL sent before: %v); want none of the URLs already there",
			got, chosen)
	}
}
