package sitemap

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestReadRedirectToASitemapAlreadyRead(t *testing.T) {
	// Each sitemap is downloaded once per read, whatever URL leads to it: a redirect to one
	// already read is skipped, not fetched again and not a failure.
	s := newTestSite(t)
	s.put("/a.xml", &testPage{body: urlsetOf(s.url("/1"))})
	s.put("/old-a.xml", &testPage{redirect: "/a.xml"})
	s.put("/moved.xml", &testPage{redirect: "/final.xml"})
	s.put("/final.xml", &testPage{body: urlsetOf(s.url("/2"))})
	s.put("/idx.xml", &testPage{body: indexOf(s.url("/a.xml"), s.url("/old-a.xml"), s.url("/moved.xml"), s.url("/final.xml"))})
	r := read(t, fast(), s.url("/idx.xml"))
	if !slices.Equal(r.urls, []string{s.url("/1"), s.url("/2")}) || len(r.res.Failed()) != 0 {
		t.Errorf("urls %v, failed %v", r.urls, r.res.Failed())
	}
	for path, want := range map[string]int{"/a.xml": 1, "/old-a.xml": 1, "/moved.xml": 1, "/final.xml": 1} {
		if n := s.hitsOf(path); n != want {
			t.Errorf("%s fetched %d times, want %d", path, n, want)
		}
	}
	if !r.warned("redirects to " + s.url("/a.xml") + ", which was already read") {
		t.Errorf("warnings %q", r.warnings)
	}
	var listed []string
	for _, sm := range r.res.Sitemaps {
		listed = append(listed, strings.TrimPrefix(sm.URL, s.srv.URL))
	}
	if want := []string{"/idx.xml", "/a.xml", "/moved.xml"}; !slices.Equal(listed, want) {
		t.Errorf("sitemaps %v, want %v: one for each download", listed, want)
	}
}

func TestReadRedirectLimitIsNotRetried(t *testing.T) {
	s := newTestSite(t)
	s.put("/loop-a.xml", &testPage{redirect: "/loop-b.xml"})
	s.put("/loop-b.xml", &testPage{redirect: "/loop-a.xml"})
	s.put("/ftp.xml", &testPage{redirect: "ftp://a.example/s.xml"})
	r := read(t, fast(), s.url("/loop-a.xml"), s.url("/ftp.xml"))
	if n := s.hitsOf("/loop-a.xml") + s.hitsOf("/loop-b.xml"); n != 10 {
		t.Errorf("%d requests, want 10: one attempt, stopped at the tenth redirect", n)
	}
	if err := r.failure("/loop-a.xml"); err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Errorf("loop: %v", err)
	}
	if err := r.failure("/ftp.xml"); err == nil || !strings.Contains(err.Error(), "ftp://a.example/s.xml") || s.hitsOf("/ftp.xml") != 1 {
		t.Errorf("ftp: %v after %d requests; want one, naming the target", err, s.hitsOf("/ftp.xml"))
	}
}

func TestReadRetriesNetworkErrors(t *testing.T) {
	srv := httptest.NewServer(nil)
	gone := srv.URL + "/s.xml"
	srv.Close()
	r := read(t, fast(), gone)
	if n := strings.Count(strings.Join(r.warnings, "\n"), "trying again"); n != 3 || r.failure("/s.xml") == nil {
		t.Errorf("%d retries, err %v; want 3 retries of a refused connection", n, r.failure("/s.xml"))
	}
}
