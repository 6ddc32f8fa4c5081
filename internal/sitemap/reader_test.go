package sitemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestReadIndexTree(t *testing.T) {
	s := newTestSite(t)
	p := func(i int) string { return s.url("/p/" + string(rune('a'+i))) }
	s.put("/idx/a.xml.gz", &testPage{body: gz(t, urlsetOf(p(0))), contentType: "application/x-gzip"})
	s.put("/idx/b.xml", &testPage{body: urlsetOf(p(1), p(0)), contentEncoding: true})
	s.put("/idx/c.xml.gz", &testPage{body: urlsetOf(p(2))}) // a .gz name holding plain XML
	s.put("/idx/inner.xml", &testPage{body: indexOf(s.url("/idx/c.xml.gz"), s.url("/idx/root.xml"), "b.xml")})
	s.put("/idx/root.xml", &testPage{body: indexOf(s.url("/idx/a.xml.gz"), s.url("/idx/b.xml"), s.url("/idx/inner.xml"),
		s.url("/idx/dead.xml"), s.url("/idx/root.xml"))})
	r := read(t, fast(), s.url("/idx/root.xml"))
	if r.err != nil {
		t.Fatal(r.err)
	}
	if want := []string{p(0), p(1), p(2)}; !slices.Equal(r.urls, want) {
		t.Errorf("urls = %v, want %v", r.urls, want)
	}
	for _, path := range []string{"/idx/root.xml", "/idx/a.xml.gz", "/idx/b.xml", "/idx/inner.xml", "/idx/c.xml.gz", "/idx/dead.xml"} {
		if n := s.hitsOf(path); n != 1 {
			t.Errorf("%s fetched %d times, want once", path, n)
		}
	}
	var he *HTTPError
	if err := r.failure("/idx/dead.xml"); !errors.As(err, &he) || he.Status != 404 || !strings.Contains(err.Error(), "Not Found") {
		t.Errorf("dead child: %v, want HTTP 404 with what came back", err)
	}
	if len(r.res.Failed()) != 1 || r.res.Unreadable() || r.res.URLs != 3 {
		t.Errorf("failed %d, unreadable %v, URLs %d; want 1 failure, readable, 3 URLs", len(r.res.Failed()), r.res.Unreadable(), r.res.URLs)
	}
	for _, ua := range s.uas {
		if ua != "sitepush-test/1.0" {
			t.Errorf("User-Agent %q", ua)
		}
	}
	kinds, index := map[string]Kind{}, map[string]string{}
	for _, sm := range r.res.Sitemaps {
		kinds[sm.URL[len(s.srv.URL):]] = sm.Kind
		index[sm.URL] = sm.Index
	}
	if kinds["/idx/root.xml"] != KindIndex || kinds["/idx/a.xml.gz"] != KindURLSet {
		t.Errorf("kinds = %v", kinds)
	}
	// Each sitemap names the index that lists it: what to fix when it cannot be read.
	for child, want := range map[string]string{"/idx/root.xml": "", "/idx/dead.xml": "/idx/root.xml", "/idx/c.xml.gz": "/idx/inner.xml"} {
		if got := index[s.url(child)]; want != "" && got != s.url(want) || want == "" && got != "" {
			t.Errorf("%s: listed in %q, want %q", child, got, want)
		}
	}
}

func TestReadDedupesAcrossSitemaps(t *testing.T) {
	s := newTestSite(t)
	s.put("/1.xml", &testPage{body: urlsetOf(s.url("/a"), s.url("/b"), s.url("/a"))})
	s.put("/2.xml", &testPage{body: urlsetOf(s.url("/b"), s.url("/c"))})
	r := read(t, fast(), s.url("/1.xml"), s.url("/2.xml"), s.url("/1.xml"))
	if want := []string{s.url("/a"), s.url("/b"), s.url("/c")}; !slices.Equal(r.urls, want) {
		t.Errorf("urls = %v, want %v", r.urls, want)
	}
	if e := r.res.Sitemaps; len(e) != 2 || e[0].Entries != 2 || e[1].Entries != 1 {
		t.Errorf("sitemaps = %+v, want 2 and 1 new entries", e)
	}
	if !r.lastmods[0].Equal(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("lastmod = %v", r.lastmods[0])
	}
}

// With Options.Repeats every entry comes as it is read, and is counted; a sitemap named twice is
// still read once.
func TestReadRepeats(t *testing.T) {
	s := newTestSite(t)
	s.put("/1.xml", &testPage{body: urlsetOf(s.url("/a"), s.url("/b"), s.url("/a"))})
	s.put("/2.xml", &testPage{body: urlsetOf(s.url("/b"), s.url("/c"))})
	opt := fast()
	opt.Repeats = true
	r := read(t, opt, s.url("/1.xml"), s.url("/2.xml"), s.url("/1.xml"))
	if want := []string{s.url("/a"), s.url("/b"), s.url("/a"), s.url("/b"), s.url("/c")}; !slices.Equal(r.urls, want) {
		t.Errorf("urls = %v, want %v", r.urls, want)
	}
	if e := r.res.Sitemaps; len(e) != 2 || e[0].Entries != 3 || e[1].Entries != 2 || r.res.URLs != 5 {
		t.Errorf("sitemaps = %+v, %d URLs; want 3 and 2 entries, 5 in all", e, r.res.URLs)
	}
}

// With Options.Repeats, a sitemap whose first attempt dropped comes again whole, and is counted
// as its last attempt read it: 30,000 URLs, not over the 50,000-URL limit.
func TestReadRepeatsAfterConnectionDrops(t *testing.T) {
	s := newTestSite(t)
	var urls []string
	for i := range 30_000 {
		urls = append(urls, s.url(fmt.Sprintf("/p/%d", i)))
	}
	body := urlsetOf(urls...)
	s.put("/big.xml", &testPage{body: body, cutAt: len(body) * 9 / 10})
	opt := fast()
	opt.Repeats = true
	r := read(t, opt, s.url("/big.xml"))
	if e := r.res.Sitemaps[0].Entries; e != 30_000 || r.res.URLs != 30_000 || len(r.urls) < 50_000 || r.warned("more than 50,000") || s.hitsOf("/big.xml") != 2 {
		t.Errorf("entries %d, %d URLs, %d delivered, %d fetches, warnings %v; want 30,000 counted, both attempts delivered",
			e, r.res.URLs, len(r.urls), s.hitsOf("/big.xml"), r.warnings)
	}
}

func TestReadRetries(t *testing.T) {
	s := newTestSite(t)
	s.put("/flaky.xml", &testPage{body: urlsetOf(s.url("/a")), statuses: []int{503, 429}})
	s.put("/down.xml", &testPage{body: urlsetOf(s.url("/b")), statuses: []int{500, 502, 503, 504, 500}})
	s.put("/gone.xml", &testPage{body: urlsetOf(s.url("/c")), statuses: []int{410}})
	r := read(t, fast(), s.url("/flaky.xml"), s.url("/down.xml"), s.url("/gone.xml"))
	if !slices.Equal(r.urls, []string{s.url("/a")}) {
		t.Errorf("urls = %v", r.urls)
	}
	if s.hitsOf("/flaky.xml") != 3 || s.hitsOf("/down.xml") != 4 || s.hitsOf("/gone.xml") != 1 {
		t.Errorf("hits flaky %d down %d gone %d; want 3 (two retries), 4 (1+3 retries), 1 (no retry on 410)",
			s.hitsOf("/flaky.xml"), s.hitsOf("/down.xml"), s.hitsOf("/gone.xml"))
	}
	if !r.warned("HTTP 503 Service Unavailable (text/plain; charset=utf-8, 12 bytes); trying again in 1ms (1 of 3)") {
		t.Errorf("warnings = %q", r.warnings)
	}
	var he *HTTPError
	if err := r.failure("/down.xml"); !errors.As(err, &he) || he.Status != 504 {
		t.Errorf("down.xml: %v, want the last answer, HTTP 504", err)
	}
}

func TestReadRetriesAfterConnectionDrops(t *testing.T) {
	s := newTestSite(t)
	var urls []string
	for i := range 2000 {
		urls = append(urls, s.url("/p/"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"/"+time.Duration(i).String()))
	}
	body := urlsetOf(urls...)
	s.put("/big.xml", &testPage{body: body, cutAt: len(body) / 2})
	r := read(t, fast(), s.url("/big.xml"))
	if len(r.urls) != 2000 || r.failure("/big.xml") != nil || s.hitsOf("/big.xml") != 2 {
		t.Fatalf("%d URLs, err %v, %d fetches; want 2000 URLs each once after one retry", len(r.urls), r.failure("/big.xml"), s.hitsOf("/big.xml"))
	}
	if !slices.Equal(r.urls, urls) {
		t.Error("URLs out of order or repeated")
	}
}

func TestReadTimeout(t *testing.T) {
	s := newTestSite(t)
	s.put("/slow.xml", &testPage{body: urlsetOf(s.url("/a")), delay: time.Second})
	o := fast()
	o.Timeout, o.Retries = 50*time.Millisecond, 1
	r := read(t, o, s.url("/slow.xml"))
	if err := r.failure("/slow.xml"); err == nil || !strings.Contains(err.Error(), "within 50ms (sitemap.timeout)") || s.hitsOf("/slow.xml") != 2 {
		t.Errorf("err %v after %d tries, want a timeout naming sitemap.timeout after 2", err, s.hitsOf("/slow.xml"))
	}
}

func TestReadDepthLimit(t *testing.T) {
	s := newTestSite(t)
	for i := range 4 {
		s.put("/i"+string(rune('0'+i))+".xml", &testPage{body: indexOf(s.url("/i"+string(rune('1'+i))+".xml"), s.url("/u"+string(rune('0'+i))+".xml"))})
		s.put("/u"+string(rune('0'+i))+".xml", &testPage{body: urlsetOf(s.url("/p" + string(rune('0'+i))))})
	}
	o := fast()
	o.MaxDepth = 2
	r := read(t, o, s.url("/i0.xml"))
	if want := []string{s.url("/p1"), s.url("/p0")}; !slices.Equal(r.urls, want) {
		t.Errorf("urls = %v, want %v", r.urls, want)
	}
	if err := r.failure("/i3.xml"); err == nil || !strings.Contains(err.Error(), "sitemap.maxDepth") || s.hitsOf("/i3.xml") != 0 {
		t.Errorf("i3: %v, fetched %d; want not fetched, naming sitemap.maxDepth", err, s.hitsOf("/i3.xml"))
	}
}

func TestReadNotASitemap(t *testing.T) {
	s := newTestSite(t)
	s.put("/page.html", &testPage{body: []byte("<!doctype html><html><head><title>Oops</title></head></html>"), contentType: "text/html; charset=utf-8"})
	r := read(t, fast(), s.url("/page.html"))
	err := r.failure("/page.html")
	if !errors.Is(err, ErrNotSitemap) || !strings.Contains(err.Error(), "HTML page (HTTP 200, text/html; charset=utf-8)") {
		t.Errorf("err = %v", err)
	}
	if !r.res.Unreadable() || s.hitsOf("/page.html") != 1 {
		t.Errorf("unreadable %v after %d fetches; want unreadable, not retried", r.res.Unreadable(), s.hitsOf("/page.html"))
	}
}

func TestReadTooLargeKeepsWhatCameBefore(t *testing.T) {
	s := newTestSite(t)
	var urls []string
	for i := range 1000 {
		urls = append(urls, s.url("/p/")+strings.Repeat("a", i%10)+time.Duration(i).String())
	}
	s.put("/big.xml", &testPage{body: urlsetOf(urls...)})
	o := fast()
	o.MaxBytes = 20000
	r := read(t, o, s.url("/big.xml"))
	if err := r.failure("/big.xml"); !errors.Is(err, ErrTooLarge) || s.hitsOf("/big.xml") != 1 {
		t.Fatalf("err = %v after %d fetches, want ErrTooLarge, not retried", err, s.hitsOf("/big.xml"))
	}
	if len(r.urls) < 100 || len(r.urls) >= 1000 || !slices.Equal(r.urls, urls[:len(r.urls)]) {
		t.Errorf("kept %d URLs, want the ones before the limit", len(r.urls))
	}
}

func TestReadEntryChecks(t *testing.T) {
	s := newTestSite(t)
	doc := `<urlset><url><loc>/relative</loc></url><url><lastmod>2024-01-01</lastmod></url>` +
		`<url><loc>ftp://x/y</loc></url><url><loc>https://a.example/ok</loc><lastmod>yesterday</lastmod></url>` +
		`<url><loc>https://a.example/space here</loc></url></urlset>`
	s.put("/m.xml", &testPage{body: []byte(doc)})
	r := read(t, fast(), s.url("/m.xml"))
	want := []string{s.url("/relative"), "https://a.example/ok", "https://a.example/space%20here"}
	if !slices.Equal(r.urls, want) || !r.lastmods[1].IsZero() {
		t.Errorf("urls = %v, lastmods %v; want %v, no lastmod for /ok", r.urls, r.lastmods, want)
	}
	for _, w := range []string{`relative URL "/relative" resolved`, "an entry without a URL was skipped", `"ftp://x/y": not an http(s) URL`,
		`https://a.example/ok: lastmod "yesterday" is not a date; the URL is kept without one`, "percent-encoded"} {
		if !r.warned(w) {
			t.Errorf("no warning %q in %q", w, r.warnings)
		}
	}
}

func TestReadSkipsAHostWithoutItsScheme(t *testing.T) {
	// A public host name, one beginning with "www." and the sitemap's own (the test server's
	// 127.0.0.1), whatever their suffix: never read as a path of the sitemap's directory.
	for _, host := range []string{"www.example.com", "www.anything", "127.0.0.1"} {
		t.Run(host, func(t *testing.T) {
			s := newTestSite(t)
			s.put("/m.xml", &testPage{body: urlsetOf(host+"/", "/p/path")})
			s.put("/i.xml", &testPage{body: indexOf(host+"/sitemap.xml", s.url("/m.xml"))})
			r := read(t, fast(), s.url("/i.xml"))
			if want := []string{s.url("/p/path")}; !slices.Equal(r.urls, want) || s.hitsOf("/"+host+"/sitemap.xml") != 0 {
				t.Errorf("urls = %v, want %v, and no made-up sitemap fetched", r.urls, want)
			}
			for _, w := range []string{`skipped sitemap "` + host + `/sitemap.xml": it starts with a host name but no scheme`,
				`skipped "` + host + `/": it starts with a host name but no scheme`} {
				if !r.warned(w) {
					t.Errorf("no warning %q in %q", w, r.warnings)
				}
			}
		})
	}
}

func TestReadCapsWarnings(t *testing.T) {
	s := newTestSite(t)
	s.put("/bad.xml", &testPage{body: urlsetOf(slices.Repeat([]string{"ftp://x/y"}, 100)...)})
	r := read(t, fast(), s.url("/bad.xml"))
	if len(r.warnings) != warnLimit+1 || !r.warned("80 more warnings not shown") {
		t.Errorf("%d warnings, last %q", len(r.warnings), r.warnings[len(r.warnings)-1])
	}
}

func TestReadTextSitemapWhateverTheOrderOfItsLines(t *testing.T) {
	// Whether a body is a text sitemap is decided by its lines as a whole: a first line that is no
	// URL is skipped with a warning, as it is anywhere else.
	s := newTestSite(t)
	bad, good := "www.example.com/catalog?item=1", []string{s.url("/p/1"), s.url("/p/2")}
	s.put("/first.txt", &testPage{body: []byte(bad + "\n" + strings.Join(good, "\n")), contentType: "text/plain"})
	s.put("/last.txt", &testPage{body: []byte(strings.Join(good, "\n") + "\n" + bad), contentType: "text/plain"})
	for _, path := range []string{"/first.txt", "/last.txt"} {
		r := read(t, fast(), s.url(path))
		if err := r.failure(path); err != nil || !slices.Equal(r.urls, good) {
			t.Errorf("%s: %v, urls %v; want %v", path, err, r.urls, good)
		}
		if !r.warned(`skipped line "` + bad + `": a text sitemap lists one absolute http(s) URL a line`) {
			t.Errorf("%s: warnings %q, want one naming the line skipped", path, r.warnings)
		}
	}
	// Lines before the first URL are warned of as any others: the first warnLimit, then a count.
	s.put("/late.txt", &testPage{body: []byte(strings.Repeat("no url here\n", 30) + good[0]), contentType: "text/plain"})
	r := read(t, fast(), s.url("/late.txt"))
	if !slices.Equal(r.urls, good[:1]) || len(r.warnings) != warnLimit+1 || !r.warned("10 more warnings not shown") {
		t.Errorf("30 lines before the URL: urls %v, %d warnings %q", r.urls, len(r.warnings), r.warnings)
	}
}

func TestReadWarnsPast50000URLs(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range urlsPerFile + 1 {
		b.WriteString("https://a.example/")
		b.WriteString(time.Duration(i).String())
		b.WriteByte('\n')
	}
	f := filepath.Join(dir, "urls.txt")
	os.WriteFile(f, []byte(b.String()), 0o644)
	r := read(t, fast(), f)
	if len(r.urls) != urlsPerFile+1 || !r.warned("more than 50,000 URLs") {
		t.Errorf("%d URLs, warnings %q", len(r.urls), r.warnings)
	}
}

func TestReadLocalFiles(t *testing.T) {
	s := newTestSite(t)
	s.put("/remote.xml", &testPage{body: urlsetOf(s.url("/r"))})
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "child.xml"), urlsetOf("https://a.example/child", "/relative"), 0o644)
	os.WriteFile(filepath.Join(dir, "index.xml"), indexOf("sub/child.xml", s.url("/remote.xml"), "missing.xml"), 0o644)
	r := read(t, fast(), filepath.Join(dir, "index.xml"))
	if want := []string{"https://a.example/child", s.url("/r")}; !slices.Equal(r.urls, want) {
		t.Errorf("urls = %v, want %v", r.urls, want)
	}
	if !r.warned("a relative URL in a local file cannot be resolved") {
		t.Errorf("warnings = %q", r.warnings)
	}
	if err := r.failure("missing.xml"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing.xml: %v", err)
	}
	r = read(t, fast(), "file://"+filepath.Join(dir, "sub", "child.xml"), filepath.Join(dir, "nope.xml"))
	if len(r.urls) != 1 || r.res.Sitemaps[1].Err == nil {
		t.Errorf("file:// URL: %v; missing file: %+v", r.urls, r.res.Sitemaps[1])
	}
}

func TestReadRemoteIndexNeverReadsLocalFiles(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.xml")
	os.WriteFile(secret, urlsetOf("https://secret.example/"), 0o644)
	s := newTestSite(t)
	s.put("/idx.xml", &testPage{body: indexOf("file://"+secret, secret)})
	r := read(t, fast(), s.url("/idx.xml"))
	if len(r.urls) != 0 || !r.warned("not an http(s) URL") {
		t.Errorf("urls %v, warnings %q", r.urls, r.warnings)
	}
	if err := r.failure(secret); err == nil {
		t.Errorf("the path must be taken as a URL on the site, which does not serve it")
	}
}

func TestReadDiscovery(t *testing.T) {
	t.Run("robots.txt lines", func(t *testing.T) {
		s := newTestSite(t)
		s.put("/robots.txt", &testPage{body: []byte("User-agent: *\nSITEMAP: /a.xml\nsitemap: " + "b.xml\n"), contentType: "text/plain"})
		s.put("/a.xml", &testPage{body: urlsetOf(s.url("/1"))})
		s.put("/b.xml", &testPage{body: urlsetOf(s.url("/2"))})
		for _, root := range []string{s.url(""), s.url("/"), s.url("/robots.txt")} {
			r := read(t, fast(), root)
			if !slices.Equal(r.urls, []string{s.url("/1"), s.url("/2")}) || len(r.res.Sitemaps) != 2 {
				t.Errorf("%s: urls %v, sitemaps %+v", root, r.urls, r.res.Sitemaps)
			}
		}
		if s.hitsOf("/sitemap.xml") != 0 {
			t.Error("fell back although robots.txt listed sitemaps")
		}
	})
	t.Run("fallback to /sitemap_index.xml", func(t *testing.T) {
		s := newTestSite(t)
		s.put("/sitemap_index.xml", &testPage{body: indexOf(s.url("/s.xml"))})
		s.put("/s.xml", &testPage{body: urlsetOf(s.url("/1"))})
		r := read(t, fast(), s.url("/"))
		if !slices.Equal(r.urls, []string{s.url("/1")}) || len(r.res.Failed()) != 0 || s.hitsOf("/sitemap.xml") != 1 {
			t.Errorf("urls %v, failed %v", r.urls, r.res.Failed())
		}
		if !r.warned("robots.txt: not read (HTTP 404 Not Found") {
			t.Errorf("warnings %q", r.warnings)
		}
	})
	t.Run("nothing to find", func(t *testing.T) {
		s := newTestSite(t)
		s.put("/robots.txt", &testPage{body: []byte("User-agent: *\n"), contentType: "text/plain"})
		r := read(t, fast(), s.url("/"))
		if !r.res.Unreadable() || len(r.res.Failed()) != 2 || !r.warned("lists no Sitemap: lines") {
			t.Errorf("unreadable %v, failed %v, warnings %q", r.res.Unreadable(), r.res.Failed(), r.warnings)
		}
	})
}

// memCache is a Cache in memory, which remembers what a read reports of the sitemaps of pages it
// read whole, as a run does.
type memCache map[string]Validators

func (c memCache) Known(u string) (Validators, bool) {
	v, ok := c[u]
	return v, ok
}

func (c memCache) remember(res *Result) {
	for _, sm := range res.Sitemaps {
		if sm.Err == nil && sm.Kind != KindIndex {
			c[sm.URL] = sm.Validators
		}
	}
}

func TestReadConditional(t *testing.T) {
	s := newTestSite(t)
	s.put("/idx.xml", &testPage{body: indexOf(s.url("/a.xml"), s.url("/b.xml")), etag: `"i1"`})
	s.put("/a.xml", &testPage{body: urlsetOf(s.url("/1")), etag: `"a1"`})
	s.put("/b.xml", &testPage{body: urlsetOf(s.url("/2")), etag: `"b1"`, cutAt: 40})
	cache := memCache{}
	o := fast()
	o.Cache, o.Retries = cache, 0
	r := read(t, o, s.url("/idx.xml"))
	cache.remember(r.res)
	if len(r.urls) != 1 || cache[s.url("/a.xml")].ETag != `"a1"` || cache[s.url("/a.xml")].Hash == 0 {
		t.Fatalf("first read: %v, cache %v", r.urls, cache)
	}
	if _, ok := cache[s.url("/b.xml")]; ok {
		t.Error("a sitemap that failed must not be remembered")
	}
	r = read(t, o, s.url("/idx.xml"))
	if !slices.Equal(r.urls, []string{s.url("/2")}) {
		t.Errorf("second read: %v, want only the sitemap that changed (or failed) before", r.urls)
	}
	for _, sm := range r.res.Sitemaps {
		if want := strings.HasSuffix(sm.URL, "/a.xml"); sm.NotModified != want {
			t.Errorf("%s: NotModified %v", sm.URL, sm.NotModified)
		}
	}
}

// A sitemap whose bytes are those the Cache knows is reported NotModified, though its server
// gave no validators; one whose bytes differ is not.
func TestReadSameBytes(t *testing.T) {
	s := newTestSite(t)
	s.put("/a.xml", &testPage{body: urlsetOf(s.url("/1"), s.url("/2"))})
	cache := memCache{}
	o := fast()
	o.Cache = cache
	cache.remember(read(t, o, s.url("/a.xml")).res)
	if r := read(t, o, s.url("/a.xml")); !r.res.Sitemaps[0].NotModified {
		t.Errorf("the same bytes again: NotModified false (%+v)", r.res.Sitemaps[0])
	}
	s.put("/a.xml", &testPage{body: urlsetOf(s.url("/1"), s.url("/3"))})
	if r := read(t, o, s.url("/a.xml")); r.res.Sitemaps[0].NotModified || len(r.urls) != 2 {
		t.Errorf("changed bytes: NotModified %v, urls %v", r.res.Sitemaps[0].NotModified, r.urls)
	}
}

// A local file of the size and modification time the Cache knows is not read at all; touched, it
// is read (and, its bytes the same, reported NotModified all the same).
func TestReadSameFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "s.xml")
	body := urlsetOf("https://a.example/1", "https://a.example/2")
	if err := os.WriteFile(f, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := memCache{}
	o := fast()
	o.Cache = cache
	var done []Sitemap
	o.Done = func(sm Sitemap) { done = append(done, sm) }
	cache.remember(read(t, o, f).res)
	if len(done) != 1 || done[0].Err != nil || done[0].Validators.ModTime == 0 {
		t.Fatalf("Done got %+v", done)
	}
	// Other bytes of the same size, and the time put back: the file is not opened.
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, bytes.Replace(body, []byte("/2<"), []byte("/3<"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if r := read(t, o, f); !r.res.Sitemaps[0].NotModified || len(r.urls) != 0 {
		t.Errorf("same size and time: %+v, urls %v: want not read", r.res.Sitemaps[0], r.urls)
	}
	if err := os.WriteFile(f, body, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(f, later, later); err != nil {
		t.Fatal(err)
	}
	r := read(t, o, f)
	if sm := r.res.Sitemaps[0]; !sm.NotModified || sm.Validators.ModTime != later.UnixNano() || len(r.urls) != 2 {
		t.Errorf("touched: %+v, urls %v: want read again (2 URLs), found the same bytes", sm, r.urls)
	}
}

func TestReadStops(t *testing.T) {
	s := newTestSite(t)
	s.put("/s.xml", &testPage{body: urlsetOf(s.url("/1"), s.url("/2"), s.url("/3"))})
	stop := errors.New("enough")
	n := 0
	_, err := NewReader(fast()).Read(context.Background(), []string{s.url("/s.xml")}, func(Entry) error {
		if n++; n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("err = %v after %d entries, want the callback's error after 2", err, n)
	}
	s.put("/slow.xml", &testPage{body: urlsetOf(s.url("/1")), statuses: []int{503, 503, 503}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	o := fast()
	o.RetryInterval = time.Minute
	_, err = NewReader(o).Read(ctx, []string{s.url("/slow.xml")}, func(Entry) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's", err)
	}
}

func TestReadTimeoutMidBody(t *testing.T) {
	s := newTestSite(t)
	var urls []string
	for i := range 3000 {
		urls = append(urls, s.url("/p/")+time.Duration(i).String())
	}
	body := urlsetOf(urls...)
	s.put("/stall.xml", &testPage{body: body})
	// The server sends half the body, then stalls past the timeout.
	s.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
		w.Write(body[len(body)/2:])
	})
	o := fast()
	o.Timeout, o.Retries = 100*time.Millisecond, 0
	r := read(t, o, s.url("/stall.xml"))
	err := r.failure("/stall.xml")
	if err == nil || !strings.Contains(err.Error(), "within 100ms (sitemap.timeout)") || len(r.urls) == 0 || len(r.urls) >= 3000 {
		t.Errorf("err %v with %d URLs; want a timeout naming sitemap.timeout, keeping the first half", err, len(r.urls))
	}
}
