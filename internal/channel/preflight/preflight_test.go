package preflight

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
)

// site is an httptest site whose pages each test sets up, counting the fetches of each path.
type site struct {
	*httptest.Server
	mu      sync.Mutex
	fetches map[string]int
	robots  string
}

func newSite(t *testing.T, pages map[string]func(w http.ResponseWriter)) *site {
	s := &site{fetches: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.fetches[r.URL.Path]++
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			if s.robots == "" {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(s.robots))
			return
		}
		if f := pages[r.URL.Path]; f != nil {
			f(w)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><html><head><title>A page</title></head><body>Hello</body></html>"))
	}))
	t.Cleanup(s.Close)
	return s
}

func htmlPage(head string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head>" + head + "</head><body><p>text</p></body></html>"))
	}
}

func TestVerdicts(t *testing.T) {
	var s *site
	s = newSite(t, map[string]func(http.ResponseWriter){
		"/self":      func(w http.ResponseWriter) { htmlPage(`<link rel="canonical" href="` + s.URL + `/self">`)(w) },
		"/relative":  htmlPage(`<link rel="canonical" href="/relative">`),
		"/elsewhere": htmlPage(`<link rel="canonical" href="/other">`),
		"/meta":      htmlPage(`<meta name="robots" content="index, NOINDEX">`),
		"/none":      htmlPage(`<meta name="ROBOTS" content="none">`),
		"/bingbot":   htmlPage(`<meta name="bingbot" content="noindex">`),
		"/googlebot": htmlPage(`<meta name="googlebot" content="noindex">`),
		"/in-body": func(w http.ResponseWriter) {
			w.Write([]byte(`<html><head></head><body><meta name="robots" content="noindex"></body></html>`))
		},
		"/header": func(w http.ResponseWriter) { w.Header().Set("X-Robots-Tag", "noindex, nofollow") },
		"/header-bingbot": func(w http.ResponseWriter) {
			w.Header().Set("X-Robots-Tag", "bingbot: noindex")
		},
		"/unavailable": func(w http.ResponseWriter) {
			w.Header().Set("X-Robots-Tag", "unavailable_after: 25 Jun 2010 15:00:00 PST")
		},
		"/gone": func(w http.ResponseWriter) { w.WriteHeader(http.StatusGone) },
		"/404":  func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) },
		"/503":  func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) },
		"/moved": func(w http.ResponseWriter) {
			w.Header().Set("Location", "/self")
			w.WriteHeader(http.StatusMovedPermanently)
		},
		"/secret": htmlPage(""),
	})
	s.robots = "User-agent: *\nDisallow: /secret\n\nUser-agent: bingbot\nDisallow: /bing-only\n"
	tests := []struct {
		path   string
		e      Engine
		reason string
		detail string
		again  bool
	}{
		{"/plain", Bing, "", "", false},
		{"/self", Bing, "", "", false},
		{"/relative", Bing, "", "", false},
		{"/elsewhere", Bing, channel.NotCanonical, s.URL + "/other", false},
		{"/meta", IndexNow, channel.NotNoindex, `<meta name="robots" content="index, NOINDEX">`, false},
		{"/none", Bing, channel.NotNoindex, "", false},
		{"/bingbot", Bing, channel.NotNoindex, "", false},
		{"/bingbot", IndexNow, "", "", false},
		{"/googlebot", Bing, "", "", false},
		{"/in-body", Bing, "", "", false},
		{"/header", IndexNow, channel.NotNoindex, "X-Robots-Tag: noindex, nofollow", false},
		{"/header-bingbot", Bing, channel.NotNoindex, "", false},
		{"/header-bingbot", IndexNow, "", "", false},
		{"/unavailable", Bing, "", "", false},
		{"/gone", Bing, channel.NotStatus, "HTTP 410", false},
		{"/404", Bing, channel.NotStatus, "HTTP 404", false},
		{"/503", Bing, channel.NotStatus, "HTTP 503", true},
		{"/moved", Bing, channel.NotRedirect, "HTTP 301 to " + s.URL + "/self", false},
		// bingbot has a group of its own: the one for every crawler does not apply to it.
		{"/secret", IndexNow, channel.NotRobots, "Disallow: /secret for *", false},
		{"/secret", Bing, "", "", false},
		{"/bing-only", Bing, channel.NotRobots, "Disallow: /bing-only for bingbot", false},
	}
	c := New(s.Client(), "sitepush-test")
	for _, tt := range tests {
		v, ok := c.Check(context.Background(), tt.e, s.URL+tt.path)
		if !ok || v.Reason != tt.reason || (tt.detail != "" && v.Detail != tt.detail) || v.Again != tt.again {
			t.Errorf("%s for %s: %+v (checked %v), want reason %q detail %q again %v", tt.path, tt.e.Channel, v, ok, tt.reason, tt.detail, tt.again)
		}
	}
	if s.fetches["/robots.txt"] != 1 || s.fetches["/bingbot"] != 1 {
		t.Errorf("fetched robots.txt %d times and /bingbot %d times, want each once in a run", s.fetches["/robots.txt"], s.fetches["/bingbot"])
	}
}

// reporter keeps the outcomes reported.
type reporter struct {
	channel.Reporter
	mu       sync.Mutex
	outcomes []channel.Outcome
}

func (r *reporter) Finished(o channel.Outcome) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes = append(r.outcomes, o)
	return nil
}

func TestSplitReportsEachOnceAndBoundsFetches(t *testing.T) {
	var inFlight, most atomic.Int32
	s := newSite(t, map[string]func(http.ResponseWriter){
		"/gone": func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) },
	})
	slow := s.Config.Handler
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		slow.ServeHTTP(w, r)
		inFlight.Add(-1)
	})
	var urls []channel.Due
	for i := range 40 {
		urls = append(urls, channel.Due{Hash: int64(i), URL: s.URL + "/p/" + strings.Repeat("x", i+1)})
	}
	urls = append(urls, channel.Due{Hash: 99, URL: s.URL + "/gone"})
	c, rep := New(s.Client(), "t"), &reporter{}
	for range 2 {
		send, _, err := c.Split(context.Background(), Bing, urls, rep)
		if err != nil || len(send) != 40 {
			t.Fatalf("Split: %d to send, %v; want 40", len(send), err)
		}
	}
	if len(rep.outcomes) != 1 || rep.outcomes[0].URLs[0].Hash != 99 || !rep.outcomes[0].Ineligible() {
		t.Errorf("outcomes %+v, want the 404 once", rep.outcomes)
	}
	if most.Load() > parallel {
		t.Errorf("%d fetches at once, want at most %d", most.Load(), parallel)
	}
}

func TestSplitLeavesUncheckedDue(t *testing.T) {
	s := newSite(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	send, _, err := New(s.Client(), "t").Split(ctx, Bing, []channel.Due{{Hash: 1, URL: s.URL + "/a"}}, &reporter{})
	if err != nil || len(send) != 0 {
		t.Errorf("after the run's end: %v, %v; want nothing sent and nothing reported", send, err)
	}
}

// TestRemovalNoticesAreNotChecked: a removal notice is sent unchecked — its page is not fetched,
// its 404 being why it is sent — and its outcome says no preflight looked, while the URLs checked
// beside it in the same outcome are marked eligible.
func TestRemovalNoticesAreNotChecked(t *testing.T) {
	s := newSite(t, map[string]func(http.ResponseWriter){
		"/gone": func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) },
	})
	urls := []channel.Due{{Hash: 1, URL: s.URL + "/a"}, {Hash: 2, URL: s.URL + "/gone", Removal: true}}
	send, held, err := New(s.Client(), "t").Split(context.Background(), IndexNow, urls, &reporter{})
	if err != nil || len(send) != 2 || len(held) != 0 || s.fetches["/gone"] != 0 {
		t.Fatalf("Split: send %v, held %v, %v, /gone fetched %d times; want both sent, /gone not fetched", send, held, err, s.fetches["/gone"])
	}
	rep := &reporter{}
	if err := Checked(rep).Finished(channel.Outcome{Channel: "indexnow", URLs: send, Delivered: true}); err != nil {
		t.Fatal(err)
	}
	checked := map[int64]bool{}
	for _, o := range rep.outcomes {
		for _, d := range o.URLs {
			checked[d.Hash] = o.Preflight != nil
		}
	}
	if len(checked) != 2 || !checked[1] || checked[2] {
		t.Errorf("outcomes %+v; want /a marked checked and the removal notice not", rep.outcomes)
	}
}

// refusing is a client's transport that refuses page fetches (channel.PageFetch) past the first
// allowed, as the Worker's does once only its last subrequests are left.
type refusing struct {
	next    http.RoundTripper
	allowed atomic.Int32
	others  atomic.Int32 // requests that were not page fetches
}

func (r *refusing) RoundTrip(req *http.Request) (*http.Response, error) {
	if !channel.IsPageFetch(req.Context()) {
		r.others.Add(1)
		return r.next.RoundTrip(req)
	}
	if r.allowed.Add(-1) < 0 {
		return nil, channel.ErrNoFetch
	}
	return r.next.RoundTrip(req)
}

// TestAClientThatRefusesFetches: once the client refuses a page fetch, the Checker is Spent: the
// pages checked are split, the others are in neither list (they stay due), none is reported,
// and no more fetch is tried.
func TestAClientThatRefusesFetches(t *testing.T) {
	s := newSite(t, nil)
	tr := &refusing{next: s.Client().Transport}
	tr.allowed.Store(4) // robots.txt and 3 pages
	var urls []channel.Due
	for i := range 20 {
		urls = append(urls, channel.Due{Hash: int64(i), URL: fmt.Sprintf("%s/p/%d", s.URL, i)})
	}
	c, rep := New(&http.Client{Transport: tr}, "t"), &reporter{}
	send, held, err := c.Split(context.Background(), Bing, urls, rep)
	if err != nil || len(send) != 3 || len(held) != 0 || len(rep.outcomes) != 0 || !c.Spent() {
		t.Fatalf("Split: %d to send, %d held, %d reported, %v, spent %t; want the 3 pages fetched to send, nothing reported, spent",
			len(send), len(held), len(rep.outcomes), err, c.Spent())
	}
	s.mu.Lock()
	fetched := s.fetches
	s.mu.Unlock()
	if fetched["/robots.txt"] != 1 || len(fetched) != 4 || tr.others.Load() != 0 {
		t.Errorf("fetched %v (and %d requests not marked as page fetches); want robots.txt and 3 pages", fetched, tr.others.Load())
	}
	if send, _, _ := c.Split(context.Background(), Bing, urls[10:], rep); len(send) != 0 {
		t.Errorf("a spent Checker checked %d more", len(send))
	}
}

func TestRobotsMatching(t *testing.T) {
	r := parseRobots([]byte("# comment\nUser-agent: a\nUser-agent: B\nDisallow: /x\nAllow: /x/ok\nDisallow: /*.pdf$\n" +
		"Disallow: /q?*s=\n\nUser-agent: *\nDisallow: /\nAllow: /$\n\nUser-agent: empty\nDisallow:\n"))
	tests := []struct {
		agent, path string
		ok          bool
	}{
		{"a", "/x/y", false}, {"b", "/x/ok/y", true}, {"a", "/doc.pdf", false}, {"a", "/doc.pdf?v=1", true},
		{"a", "/q?as=1", false}, {"a", "/y", true}, {"other", "/y", false}, {"other", "/", true},
		{"empty", "/anything", true}, {"*", "/y", false},
	}
	for _, tt := range tests {
		if _, ok := r.allowed(tt.agent, tt.path); ok != tt.ok {
			t.Errorf("%s %s: allowed %v, want %v", tt.agent, tt.path, ok, tt.ok)
		}
	}
}

// TestRobotsRedirects: a robots.txt redirect within the site is followed, its rules apply; one
// off the site is not — the other host gets no request (it may be an internal address) and
// the robots.txt is taken as missing, as Google takes one whose redirects it cannot follow.
func TestRobotsRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write([]byte("User-agent: *\nDisallow: /\n"))
	}))
	defer other.Close()
	for _, tc := range []struct {
		name, location string
		allowed        bool
	}{
		{"within the site", "/robots-real.txt", false},
		{"to another port of the host", other.URL + "/robots.txt", true},
		{"to another host", strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/robots.txt", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, map[string]func(http.ResponseWriter){
				"/robots-real.txt": func(w http.ResponseWriter) { w.Write([]byte("User-agent: *\nDisallow: /\n")) },
			})
			site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.Redirect(w, r, tc.location, http.StatusFound)
					return
				}
				s.Config.Handler.ServeHTTP(w, r)
			}))
			defer site.Close()
			elsewhere.Store(0)
			v, ok := New(site.Client(), "sitepush-test").Check(context.Background(), IndexNow, site.URL+"/page")
			if !ok || (v.Reason == "") != tc.allowed {
				t.Errorf("the page: %+v (checked %v); want allowed %v", v, ok, tc.allowed)
			}
			if n := elsewhere.Load(); n != 0 {
				t.Errorf("the other host got %d requests; want none", n)
			}
		})
	}
}

func TestOwnSite(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		own      bool
	}{
		{"http://a.example/robots.txt", "http://A.Example/r.txt", true},
		{"http://a.example/robots.txt", "https://a.example/robots.txt", true},
		{"http://a.example:8080/robots.txt", "https://a.example:8080/robots.txt", true},
		{"http://a.example/robots.txt", "https://a.example:443/robots.txt", true},
		{"https://a.example/robots.txt", "https://a.example:443/robots.txt", true},
		{"https://a.example/robots.txt", "http://a.example/robots.txt", false},
		{"http://a.example/robots.txt", "http://a.example:8080/robots.txt", false},
		{"http://a.example/robots.txt", "https://a.example:8443/robots.txt", false},
		{"http://a.example/robots.txt", "http://www.a.example/robots.txt", false},
		{"http://a.example/robots.txt", "http://169.254.169.254/latest/meta-data/", false},
	} {
		from, _ := url.Parse(tc.from)
		to, _ := url.Parse(tc.to)
		if got := ownSite(from, to); got != tc.own {
			t.Errorf("%s → %s: own site %v, want %v", tc.from, tc.to, got, tc.own)
		}
	}
}
