package sitemap

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// testSite is a website on loopback that serves sitemaps as real servers do, with scripted
// failures, and records what it was asked.
type testSite struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	pages map[string]*testPage
	hits  map[string]int
	uas   []string
}

type testPage struct {
	body            []byte
	contentType     string
	contentEncoding bool  // gzip the body on the wire and say so
	statuses        []int // answered, one per request, before the body is served
	etag            string
	cutAt           int // on the first request, close the connection after this many bytes
	delay           time.Duration
	redirect        string // answer 302 with this Location
	errorBody       string // the body of the scripted statuses, instead of "scripted 503"
}

func newTestSite(t *testing.T) *testSite {
	s := &testSite{t: t, pages: map[string]*testPage{}, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *testSite) url(path string) string { return s.srv.URL + path }

func (s *testSite) put(path string, p *testPage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.contentType == "" {
		p.contentType = "application/xml"
	}
	s.pages[path] = p
}

func (s *testSite) hitsOf(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *testSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	n := s.hits[r.URL.Path]
	s.uas = append(s.uas, r.UserAgent())
	p, ok := s.pages[r.URL.Path]
	var status int
	if ok && len(p.statuses) > 0 {
		status, p.statuses = p.statuses[0], p.statuses[1:]
	}
	s.mu.Unlock()
	switch {
	case !ok:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html><body><h1>Not Found</h1></body></html>")
		return
	case status != 0:
		w.WriteHeader(status)
		if p.errorBody != "" {
			fmt.Fprint(w, p.errorBody)
		} else {
			fmt.Fprintf(w, "scripted %d", status)
		}
		return
	case p.redirect != "":
		http.Redirect(w, r, p.redirect, http.StatusFound)
		return
	}
	time.Sleep(p.delay)
	if p.etag != "" {
		if r.Header.Get("If-None-Match") == p.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", p.etag)
	}
	body := p.body
	w.Header().Set("Content-Type", p.contentType)
	if p.contentEncoding {
		body = gz(s.t, body)
		w.Header().Set("Content-Encoding", "gzip")
	}
	if p.cutAt > 0 && n == 1 {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body[:p.cutAt])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection drops mid-body
	}
	w.Write(body)
}

func urlsetOf(urls ...string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range urls {
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>2024-01-02</lastmod></url>\n", u)
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

func indexOf(urls ...string) []byte {
	var b strings.Builder
	b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range urls {
		fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>", u)
	}
	b.WriteString("</sitemapindex>")
	return []byte(b.String())
}

// readResult is what a Read delivered.
type readResult struct {
	urls     []string
	lastmods []time.Time
	warnings []string
	res      *Result
	err      error
}

func read(t *testing.T, opt Options, sitemaps ...string) readResult {
	t.Helper()
	var out readResult
	var mu sync.Mutex
	opt.Warn = func(w Warning) {
		mu.Lock()
		defer mu.Unlock()
		out.warnings = append(out.warnings, w.String())
	}
	if opt.UserAgent == "" {
		opt.UserAgent = "sitepush-test/1.0"
	}
	out.res, out.err = NewReader(opt).Read(context.Background(), sitemaps, func(e Entry) error {
		out.urls = append(out.urls, string(e.URL))
		out.lastmods = append(out.lastmods, e.Lastmod)
		return nil
	})
	return out
}

// fast are Options for tests: quick retries, short timeouts.
func fast() Options {
	o := Defaults()
	o.RetryInterval = time.Millisecond
	o.Timeout = 5 * time.Second
	return o
}

func (r readResult) warned(substr string) bool {
	for _, w := range r.warnings {
		if strings.Contains(w, substr) {
			return true
		}
	}
	return false
}

// failure returns the error recorded for the sitemap whose URL ends with suffix.
func (r readResult) failure(suffix string) error {
	for _, s := range r.res.Sitemaps {
		if strings.HasSuffix(s.URL, suffix) {
			return s.Err
		}
	}
	return nil
}
