package runner_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// A URL listed again — in the same sitemap, in another, spelt with its host in capitals, or by an
// attempt at a sitemap whose connection dropped — is one page: sent once, counted once, on the
// first run and on those that merge against what was remembered.
func TestAPageListedAgain(t *testing.T) {
	dir := t.TempDir()
	one := []string{"https://a.example/a", "https://a.example/b", "https://a.example/a", "HTTPS://A.EXAMPLE/c", "https://a.example/c"}
	for i := range 200 {
		one = append(one, fmt.Sprintf("https://a.example/p/%d", i))
	}
	body := "<urlset><url><loc>" + strings.Join(one, "</loc></url><url><loc>") + "</loc></url></urlset>"
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if fetches.Add(1) == 1 {
			w.Write([]byte(body[:len(body)/2])) // the connection drops halfway
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	two := func(paths ...string) {
		doc := "<urlset>"
		for _, p := range paths {
			doc += "<url><loc>https://a.example" + p + "</loc></url>"
		}
		os.WriteFile(filepath.Join(dir, "two.xml"), []byte(doc+"</urlset>"), 0o644)
	}
	two("/b", "/d", "/a")
	s := siteIn(t, dir, srv.URL+"/one.xml, two.xml", "    sitemap: {retryInterval: 1ms}\n")
	r := runner.New(storetest.Open(t))
	in := &fakeChannel{name: "indexnow", batch: 50}
	opt := runner.Options{Channels: []channel.Channel{in}}

	rec := run(t, r, s, opt)
	want := urls("/a", "/b", "/c", "/d")
	for i := range 200 {
		want = append(want, fmt.Sprintf("https://a.example/p/%d", i))
	}
	slices.Sort(want)
	if got := in.take(); !slices.Equal(got, want) || rec.TotalURLs != 204 || rec.Channels["indexnow"].Due != 204 || fetches.Load() != 2 {
		t.Fatalf("first run: sent %d URLs (want %d, each once), counted %d, due %d, %d fetches", len(got), len(want), rec.TotalURLs, rec.Channels["indexnow"].Due, fetches.Load())
	}
	// The remote sitemap is read again (it gives no validators), the same bytes; the local one
	// is not.
	rec = run(t, r, s, opt)
	if got := in.take(); len(got) != 0 || rec.TotalURLs != 204 || rec.Channels["indexnow"].Skipped != 204 {
		t.Errorf("rerun: sent %v, counted %d, skipped %d", got, rec.TotalURLs, rec.Channels["indexnow"].Skipped)
	}
	two("/b", "/d", "/a", "/e")
	rec = run(t, r, s, opt)
	if got := in.take(); !slices.Equal(got, urls("/e")) || rec.TotalURLs != 205 || rec.Channels["indexnow"].Skipped != 204 {
		t.Errorf("a page added to the second sitemap: sent %v, counted %d, skipped %d", got, rec.TotalURLs, rec.Channels["indexnow"].Skipped)
	}
}

// A sitemap too big to be held whole is synced in pieces: every page is recorded with its URL,
// sent once, though listed again in a later piece.
func TestASitemapInPieces(t *testing.T) {
	s := newSite(t, "")
	var b strings.Builder
	const n = 100_050
	for i := range n {
		fmt.Fprintf(&b, "https://a.example/n/%d\n", i)
	}
	b.WriteString("https://a.example/n/5\n")
	os.WriteFile(filepath.Join(s.dir, "sitemap.xml"), []byte(b.String()), 0o644)
	r := runner.New(storetest.Open(t))
	in := &fakeChannel{name: "indexnow", batch: 10_000}
	rec := run(t, r, s, runner.Options{Channels: []channel.Channel{in}})
	got := in.take()
	distinct := len(slices.Compact(slices.Clone(got)))
	if len(got) != n || distinct != n || slices.Contains(got, "") || rec.TotalURLs != n {
		t.Fatalf("sent %d URLs (%d distinct, an empty one: %t), counted %d; want %d", len(got), distinct, slices.Contains(got, ""), rec.TotalURLs, n)
	}
}

// A URL the filter leaves out is counted once, however often it is listed: twice in a sitemap,
// again by an attempt after a dropped connection, and by another sitemap.
func TestAURLLeftOutIsCountedOnce(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 200 {
		paths = append(paths, fmt.Sprintf("/p/%d", i))
	}
	paths = append(paths, "/private/x", "/private/x")
	body := "<urlset><url><loc>https://a.example" + strings.Join(paths, "</loc></url><url><loc>https://a.example") + "</loc></url></urlset>"
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if fetches.Add(1) == 1 {
			w.Write([]byte(body[:len(body)-40])) // drops after the entries left out
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	os.WriteFile(filepath.Join(dir, "two.xml"), []byte("<urlset><url><loc>https://a.example/private/x</loc></url></urlset>"), 0o644)
	s := siteIn(t, dir, srv.URL+"/one.xml, two.xml", "    exclude: [\"/private/**\"]\n    sitemap: {retryInterval: 1ms}\n")
	in := &fakeChannel{name: "indexnow", batch: 500}
	rec := run(t, runner.New(storetest.Open(t)), s, runner.Options{Channels: []channel.Channel{in}})
	if rec.TotalURLs != 200 || rec.Filtered != 1 || fetches.Load() != 2 || len(in.take()) != 200 {
		t.Errorf("counted %d URLs, %d left out (%d fetches); want 200 and 1", rec.TotalURLs, rec.Filtered, fetches.Load())
	}
}
