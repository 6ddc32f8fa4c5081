package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// initWorld is a site on loopback whose files a test sets: a value "-> /path" redirects there.
type initWorld struct {
	srv      *httptest.Server
	files    map[string]string
	requests atomic.Int64
	dir      string // an empty directory for the configuration and the key directory
}

func newInitWorld(t *testing.T) *initWorld {
	w := &initWorld{files: map[string]string{}, dir: t.TempDir()}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.requests.Add(1)
		body, ok := w.files[r.URL.Path]
		switch {
		case !ok:
			http.NotFound(rw, r)
		case strings.HasPrefix(body, "-> "):
			http.Redirect(rw, r, strings.TrimPrefix(body, "-> "), http.StatusMovedPermanently)
		default:
			fmt.Fprint(rw, body)
		}
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// urlset returns a sitemap of n pages under path on host.
func urlset(host, path string, n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>%s%s/p-%d</loc><lastmod>2026-01-%02dT10:00:00Z</lastmod></url>", host, path, i, i%28+1)
	}
	b.WriteString("</urlset>")
	return b.String()
}

func (w *initWorld) path(name string) string { return filepath.Join(w.dir, name) }

// keyFiles lists the key files in dir.
func keyFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	keyFileName := regexp.MustCompile(`^[0-9a-f]{32}\.txt$`)
	var out []string
	for _, e := range entries {
		if keyFileName.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestKeyCommand(t *testing.T) {
	code, out, errOut := run(t, "key")
	code2, out2, _ := run(t, "key")
	if code != exitOK || code2 != exitOK || !regexp.MustCompile(`^[0-9a-f]{32}\n$`).MatchString(out) || out == out2 {
		t.Errorf("sitepush key: exit %d, %q, %q, then %q", code, out, errOut, out2)
	}
	if code, _, errOut := run(t, "key", "extra"); code != exitUsage || !strings.Contains(errOut, "usage: sitepush key") {
		t.Errorf("sitepush key extra: exit %d, %q", code, errOut)
	}
}

func TestInitFromRobots(t *testing.T) {
	w := newInitWorld(t)
	site := w.srv.URL
	w.files["/robots.txt"] = "User-agent: *\nDisallow:\nSitemap: " + site + "/sitemap-posts.xml\n"
	w.files["/sitemap-posts.xml"] = strings.Replace(urlset(site, "/posts", 20), "</urlset>",
		"<url><loc>https://cdn.example.org/elsewhere</loc></url></urlset>", 1)
	w.files["/sitemap.xml"] = urlset(site, "/other", 5) // not read: robots.txt names the sitemaps
	public := w.path("public")
	os.Mkdir(public, 0o755)
	cfgPath := w.path("sitepush.yaml")

	code, out, errOut := run(t, "init", site+"/", "--config", cfgPath, "--key-dir", public)
	if code != exitOK || !strings.Contains(out, "found 1 sitemap with 20 URLs on "+strings.TrimPrefix(site, "http://")+" (listed in robots.txt)") ||
		!strings.Contains(out, "1 URL on other hosts, like cdn.example.org") {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	keys := keyFiles(t, public)
	if len(keys) != 1 {
		t.Fatalf("key files written: %v", keys)
	}
	key := strings.TrimSuffix(keys[0], ".txt")
	if got := readFile(t, filepath.Join(public, keys[0])); got != key {
		t.Errorf("the key file holds %q, want exactly %q", got, key)
	}
	for _, want := range []string{
		"wrote the IndexNow key file " + filepath.Join(public, keys[0]),
		"publish the site so that " + site + "/" + key + ".txt serves the key file " + filepath.Join(public, keys[0]),
		"sitepush check --config " + cfgPath,
		"sitepush run --config " + cfgPath + " --dry-run",
		"sitepush run --config " + cfgPath + " ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{cfgPath, filepath.Join(public, keys[0])} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, %v; want mode 0644", f, fi, err)
		}
	}

	cfg, err := config.Load(cfgPath, os.LookupEnv)
	if err != nil {
		t.Fatalf("the configuration init wrote does not load: %v\n%s", err, readFile(t, cfgPath))
	}
	s := cfg.Sites[0]
	if !regexp.MustCompile(`^([0-9]|[1-5][0-9]) \* \* \* \*$`).MatchString(s.Schedule) || !strings.Contains(readFile(t, cfgPath), "at minute "+strings.Fields(s.Schedule)[0]+" (cron, UTC)") {
		t.Errorf("schedule %q; want hourly, at the minute its comment names", s.Schedule)
	}
	if len(cfg.Sites) != 1 || s.ID != "127.0.0.1" || s.BaseURL != site || strings.Join(s.Sitemaps, " ") != site+"/sitemap-posts.xml" ||
		!s.IndexNow.Enabled || s.IndexNow.Key != key || s.IndexNow.KeyLocation != site+"/"+key+".txt" || s.Bing.Enabled || s.Feed.Enabled ||
		cfg.State != "sqlite:"+filepath.Join(w.dir, "sitepush.db") {
		t.Errorf("the configuration: state %s, site %+v", cfg.State, s)
	}
	text := readFile(t, cfgPath)
	for _, want := range []string{"      backlog: 168h   # first run: only the pages changed in the last week", "#   apiKey: ${BING_API_KEY}",
		"#   backlog: all   # first run: every page; Bing's daily quota paces them", "# feed:",
		"    # When sitepush serve runs the site: hourly, at minute ", "a new page goes out\n    # within the hour, not the next day"} {
		if !strings.Contains(text, want) {
			t.Errorf("the configuration lacks %q:\n%s", want, text)
		}
	}

	w.files["/"+key+".txt"] = key
	code, out, errOut = run(t, "run", "--config", cfgPath, "--dry-run", "--json")
	var rec model.Record
	// The pages changed in January 2026, more than a week ago: the first run sends none of them.
	if err := json.Unmarshal([]byte(out), &rec); err != nil || code != exitOK || rec.Channels["indexnow"] == nil ||
		rec.Channels["indexnow"].Due != 0 || rec.Channels["indexnow"].Backlog != 20 {
		t.Errorf("run --dry-run --json on the configuration init wrote: exit %d, %v\n%s%s", code, err, out, errOut)
	}
}

// TestInitWritesHostileSitemapsAsTheSameURLs: the sitemaps robots.txt lists are written in a form
// that loads as the same URLs — percent-encoded, never a raw line break of YAML's (U+0085, U+2028,
// U+2029) nor a "${" the configuration would read as an environment variable — and one of them
// does not cost the others.
func TestInitWritesHostileSitemapsAsTheSameURLs(t *testing.T) {
	w := newInitWorld(t)
	site := w.srv.URL
	listed := map[string]string{ // as robots.txt lists it: what it is, percent-encoded
		site + "/good.xml":                 site + "/good.xml",
		site + "/para\u2029graph.xml":      site + "/para%E2%80%A9graph.xml",
		site + "/next\u0085line.xml":       site + "/next%C2%85line.xml",
		site + "/${HOME}/sitemap.xml":      site + "/$%7BHOME%7D/sitemap.xml",
		site + "/q1.xml?v=a\u2028b":        site + "/q1.xml?v=a%E2%80%A8b",
		site + "/q2.xml?dir=${HOME}&x=a b": site + "/q2.xml?dir=$%7BHOME%7D&x=a%20b",
		site + "/colon.xml:":               site + "/colon.xml:",
	}
	var robots strings.Builder
	for u := range listed {
		robots.WriteString("Sitemap: " + u + "\n")
		path, _, _ := strings.Cut(strings.TrimPrefix(u, site), "?")
		w.files[path] = urlset(site, "/p", 2)
	}
	w.files["/robots.txt"] = robots.String()
	t.Setenv("HOME", "/home/EXPANDED")
	cfgPath := w.path("sitepush.yaml")
	code, out, errOut := run(t, "init", site, "--config", cfgPath)
	if code != exitOK || !strings.Contains(out, "found 7 sitemaps with 2 URLs") {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	text := readFile(t, cfgPath)
	for _, line := range strings.Split(text, "\n") {
		if strings.ContainsAny(line, "\u0085\u2028\u2029") || strings.Contains(line, "${") && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			t.Errorf("the configuration holds %q", line)
		}
	}
	cfg, err := config.Load(cfgPath, os.LookupEnv)
	if err != nil {
		t.Fatalf("the configuration does not load: %v\n%s", err, text)
	}
	got := map[string]bool{}
	for _, sm := range cfg.Sites[0].Sitemaps {
		got[sm] = true
	}
	for u, want := range listed {
		if !got[want] {
			t.Errorf("%q is not written as %s: the sitemaps are %q", u, want, cfg.Sites[0].Sitemaps)
		}
	}
}

// TestInitSendsTheLastWeek: the configuration init writes follows the IndexNow FAQ — IndexNow's
// first run sends only the pages changed in the last week — and leaves Bing's backlog at all.
func TestInitSendsTheLastWeek(t *testing.T) {
	w := newInitWorld(t)
	site := w.srv.URL
	now := time.Now().UTC()
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range 10 {
		age := 24 * time.Hour * time.Duration(1+i%3) // the first 4 of 10: 1 to 3 days old
		if i >= 4 {
			age = 24 * time.Hour * time.Duration(30+i)
		}
		fmt.Fprintf(&b, "<url><loc>%s/p-%d</loc><lastmod>%s</lastmod></url>", site, i, now.Add(-age).Format(time.RFC3339))
	}
	w.files["/sitemap.xml"] = b.String() + "</urlset>"
	cfgPath := w.path("sitepush.yaml")
	if code, out, errOut := run(t, "init", site+"/sitemap.xml", "--config", cfgPath); code != exitOK ||
		!strings.Contains(out, "IndexNow on (its first run sends the pages changed in the last week: backlog 168h)") {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	cfg, err := config.Load(cfgPath, os.LookupEnv)
	if err != nil {
		t.Fatalf("the configuration init wrote does not load: %v", err)
	}
	s := &cfg.Sites[0]
	if s.IndexNow.Backlog != "168h" || s.BacklogOf("indexnow") != "168h" || !s.BacklogAll("bing") || s.Backlog != config.BacklogAll {
		t.Errorf("backlog %q, indexnow %q, bing all %v; want indexnow 168h and the rest all\n%s",
			s.Backlog, s.BacklogOf("indexnow"), s.BacklogAll("bing"), readFile(t, cfgPath))
	}
	w.files["/"+s.IndexNow.Key+".txt"] = s.IndexNow.Key
	code, out, errOut := run(t, "run", "--config", cfgPath, "--dry-run", "--json")
	var rec model.Record
	if err := json.Unmarshal([]byte(out), &rec); err != nil || code != exitOK || rec.Channels["indexnow"] == nil ||
		rec.Channels["indexnow"].Due != 4 || rec.Channels["indexnow"].Backlog != 6 || rec.Channels["indexnow"].Skipped != 0 {
		t.Errorf("run --dry-run --json: exit %d, %v; want 4 due and 6 backlog\n%s%s", code, err, out, errOut)
	}
}

func TestInitFallsBackToTheUsualPaths(t *testing.T) {
	w := newInitWorld(t)
	site := w.srv.URL
	w.files["/robots.txt"] = "User-agent: *\nDisallow: /admin\n"
	// WordPress: its index, and /sitemap.xml redirecting to it; a plain-text sitemap of the same pages.
	w.files["/wp-sitemap.xml"] = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` +
		site + `/wp-sitemap-posts-post-1.xml</loc></sitemap></sitemapindex>`
	w.files["/wp-sitemap-posts-post-1.xml"] = urlset(site, "/blog", 1234)
	w.files["/sitemap.xml"] = "-> /wp-sitemap.xml"
	w.files["/sitemap.txt"] = site + "/blog/p-1\n" + site + "/blog/p-2\n"
	cfgPath := w.path("site.yaml")

	code, out, errOut := run(t, "init", site, "--config", cfgPath)
	if code != exitOK || !strings.Contains(out, "found 1 sitemap with 1,234 URLs on "+strings.TrimPrefix(site, "http://")+" (at the usual paths)") ||
		!strings.Contains(out, "  "+site+"/wp-sitemap.xml\n") || errOut != "" {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	cfg, err := config.Load(cfgPath, os.LookupEnv)
	if err != nil {
		t.Fatalf("the configuration does not load: %v", err)
	}
	key := cfg.Sites[0].IndexNow.Key
	if strings.Join(cfg.Sites[0].Sitemaps, " ") != site+"/wp-sitemap.xml" || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(key) {
		t.Errorf("sitemaps %v, key %q", cfg.Sites[0].Sitemaps, key)
	}
	if !strings.Contains(out, "publish a file at "+site+"/"+key+".txt holding exactly the key: "+key) {
		t.Errorf("without --key-dir, init does not say where to publish the key:\n%s", out)
	}
	if keys := keyFiles(t, w.dir); len(keys) != 0 {
		t.Errorf("a key file was written without --key-dir: %v", keys)
	}
}

func TestInitLeavesOutWhatRobotsListsButCannotBeRead(t *testing.T) {
	w := newInitWorld(t)
	site := w.srv.URL
	w.files["/robots.txt"] = "Sitemap: " + site + "/gone.xml\nSitemap: " + site + "/posts.xml\n"
	w.files["/posts.xml"] = urlset(site, "/posts", 7)
	code, out, errOut := run(t, "init", site, "--config", w.path("a.yaml"))
	if code != exitOK || !strings.Contains(out, "found 1 sitemap with 7 URLs") ||
		!strings.Contains(errOut, "warning: "+site+"/gone.xml: HTTP 404") || !strings.Contains(errOut, "left out") {
		t.Fatalf("a broken sitemap in robots.txt: exit %d\n%s%s", code, out, errOut)
	}
	// When none of those robots.txt lists can be read, the usual paths are tried.
	delete(w.files, "/posts.xml")
	w.files["/sitemap.xml"] = urlset(site, "/x", 2)
	code, out, errOut = run(t, "init", site, "--config", w.path("b.yaml"))
	if code != exitOK || !strings.Contains(out, "found 1 sitemap with 2 URLs on "+strings.TrimPrefix(site, "http://")+" (at the usual paths)") {
		t.Fatalf("robots.txt lists only broken sitemaps: exit %d\n%s%s", code, out, errOut)
	}
}

// TestInitKeepsAnIndexWithADeadChild: a sitemap an index lists that cannot be read is not left
// out — the index is kept — and the warning names the index, the thing to fix.
func TestInitKeepsAnIndexWithADeadChild(t *testing.T) {
	w := newInitWorld(t)
	site := w.srv.URL
	w.files["/posts.xml"] = urlset(site, "/posts", 7)
	w.files["/index.xml"] = `<sitemapindex><sitemap><loc>` + site + `/posts.xml</loc></sitemap><sitemap><loc>` + site + `/dead.xml</loc></sitemap></sitemapindex>`
	w.files["/robots.txt"] = "Sitemap: " + site + "/index.xml\n"
	code, out, errOut := run(t, "init", site, "--config", w.path("index.yaml"))
	want := "warning: " + site + "/dead.xml: HTTP 404 Not Found (text/plain; charset=utf-8, 19 bytes) (the index " + site + "/index.xml lists it, so runs will fail on it: fix that entry of the index, or the server)"
	if code != exitOK || !strings.Contains(out, "found 1 sitemap with 7 URLs") || !strings.Contains(errOut, want) || strings.Contains(errOut, "left out") {
		t.Fatalf("a broken sitemap in an index: exit %d; want %q in\n%s%s", code, want, out, errOut)
	}
}

func TestInitOfASitemap(t *testing.T) {
	w := newInitWorld(t)
	site := w.srv.URL
	w.files["/feeds/all.xml"] = urlset(site, "/news", 3)
	code, out, errOut := run(t, "init", site+"/feeds/all.xml", "--config", w.path("sitepush.yaml"))
	if code != exitOK || !strings.Contains(out, "found 1 sitemap with 3 URLs") {
		t.Fatalf("init of a sitemap: exit %d\n%s%s", code, out, errOut)
	}
	cfg, err := config.Load(w.path("sitepush.yaml"), os.LookupEnv)
	if err != nil || cfg.Sites[0].Sitemaps[0] != site+"/feeds/all.xml" || cfg.Sites[0].BaseURL != site {
		t.Errorf("%v, %+v", err, cfg)
	}
}

func TestInitFindsNothing(t *testing.T) {
	w := newInitWorld(t)
	site := w.srv.URL
	w.files["/sitemap.xml"] = "<html>Not here</html>"
	public := w.path("public")
	os.Mkdir(public, 0o755)
	code, out, errOut := run(t, "init", site+"/", "--config", w.path("sitepush.yaml"), "--key-dir", public)
	if code != exitFailed || out != "" {
		t.Fatalf("nothing found: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"no sitemap found on " + site, site + "/robots.txt: HTTP 404", site + "/sitemap.xml: not a sitemap",
		site + "/sitemap_index.xml: HTTP 404", site + "/wp-sitemap.xml", site + "/sitemap.txt", "sitepush init " + site + "/PATH/TO/sitemap.xml",
		"nothing was written"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the error lacks %q:\n%s", want, errOut)
		}
	}
	if _, err := os.Stat(w.path("sitepush.yaml")); err == nil || len(keyFiles(t, public)) != 0 {
		t.Error("something was written")
	}

	w.files["/sitemap.xml"] = urlset("https://www.example.com", "", 4)
	code, _, errOut = run(t, "init", site+"/", "--config", w.path("sitepush.yaml"))
	if code != exitFailed || !strings.Contains(errOut, "have 4 URLs, all on other hosts, like www.example.com") ||
		!strings.Contains(errOut, "like http://www.example.com/") {
		t.Errorf("a sitemap of another host: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(w.path("sitepush.yaml")); err == nil {
		t.Error("a configuration was written for a sitemap of another host")
	}
}

func TestInitNeverOverwrites(t *testing.T) {
	w := newInitWorld(t)
	w.files["/sitemap.xml"] = urlset(w.srv.URL, "", 2)
	public := w.path("public")
	os.Mkdir(public, 0o755)
	cfgPath := w.path("sitepush.yaml")
	writeFile(t, cfgPath, "# mine\n")
	code, _, errOut := run(t, "init", w.srv.URL, "--config", cfgPath, "--key-dir", public)
	if code != exitUsage || !strings.Contains(errOut, "configuration "+cfgPath+" already exists") {
		t.Errorf("over an existing configuration: exit %d, %q", code, errOut)
	}
	if readFile(t, cfgPath) != "# mine\n" || len(keyFiles(t, public)) != 0 || w.requests.Load() != 0 {
		t.Errorf("init over an existing configuration changed it, wrote a key file or read the site (%d requests)", w.requests.Load())
	}

	code, _, errOut = run(t, "init", w.srv.URL, "--config", w.path("new.yaml"), "--key-dir", w.path("no-such-dir"))
	if code != exitUsage || !strings.Contains(errOut, "--key-dir "+w.path("no-such-dir")+": no such directory") {
		t.Errorf("a missing --key-dir: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "init", w.srv.URL, "--config", filepath.Join(w.dir, "nope", "sitepush.yaml"))
	if code != exitUsage || !strings.Contains(errOut, "no such directory: create it first") {
		t.Errorf("the configuration in a missing directory: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(w.path("new.yaml")); err == nil || w.requests.Load() != 0 {
		t.Error("init wrote a configuration, or read the site, with a missing --key-dir")
	}
	for _, arg := range []string{"example.com", "ftp://example.com/", ""} {
		if code, _, errOut := run(t, "init", arg, "--config", w.path("new.yaml")); code != exitUsage || !strings.Contains(errOut, "write it whole, like https://example.com/") {
			t.Errorf("init %q: exit %d, %q", arg, code, errOut)
		}
	}
}

func TestSiteID(t *testing.T) {
	for host, want := range map[string]string{
		"www.Example.COM": "example.com", "blog.example.com": "blog.example.com", "127.0.0.1": "127.0.0.1",
		"::1": "1", "-x.example": "x.example", strings.Repeat("a", 70) + ".com": strings.Repeat("a", 64), "": "site",
	} {
		if got := siteID(host); got != want {
			t.Errorf("siteID(%q) = %q, want %q", host, got, want)
		}
	}
}

// TestInitStopsAtAHostThatCannotBeReached: a host that refuses connections, or whose TLS fails,
// ends init at its first request, in one line that names the fix, before any sitemap path is
// tried (each would fail the same way, after its retries).
func TestInitStopsAtAHostThatCannotBeReached(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	refused := closed.URL
	closed.Close()
	selfSigned := httptest.NewUnstartedServer(http.NotFoundHandler())
	selfSigned.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake init gives up is no news
	selfSigned.StartTLS()
	t.Cleanup(selfSigned.Close)
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	notTLS := speaker(t, "SSH-2.0-OpenSSH_9.6\r\n")
	for _, c := range []struct{ name, site, want string }{
		{"refused", refused, refused + " does not answer (connection refused): check the address and that the site is up"},
		{"certificate", selfSigned.URL, selfSigned.URL + ": its TLS certificate is not valid"},
		{"https to plain http", "https://" + strings.TrimPrefix(plain.URL, "http://"), "answers plain HTTP, not HTTPS: write the address with http://"},
		{"https to another protocol", "https://" + notTLS, "the TLS handshake failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := run(t, "init", c.site+"/", "--config", filepath.Join(dir, "sitepush.yaml"))
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != exitFailed || out != "" || len(lines) != 1 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "nothing was written") {
				t.Errorf("init %s: exit %d, %d lines; want exit %d and one line with %q:\n%s%s", c.site, code, len(lines), exitFailed, c.want, out, errOut)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("init wrote %v", entries)
			}
		})
	}
}

// TestInitTellsAHostNameThatDoesNotResolve: the resolver's "no such host" ends init as a refusal
// does (told without asking a resolver: the tests talk only to loopback).
func TestInitTellsAHostNameThatDoesNotResolve(t *testing.T) {
	err := &url.Error{Op: "Head", URL: "https://no-such-host.example/", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "no-such-host.example", IsNotFound: true}}}
	got := unreachable("https://no-such-host.example", err)
	want := "https://no-such-host.example: no such host no-such-host.example: check the address's spelling, then run sitepush init again (nothing was written)"
	if got == nil || got.Error() != want {
		t.Errorf("unreachable: %v, want %q", got, want)
	}
	if got := unreachable("https://a.example", &url.Error{Op: "Head", URL: "https://a.example/", Err: errors.New("EOF")}); got != nil {
		t.Errorf("a server that hung up is left to discovery; got %v", got)
	}
}

// speaker listens on loopback and says greeting to each connection, as a server of another
// protocol would, then hangs up; it returns the host and port.
func speaker(t *testing.T, greeting string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, greeting)
			c.Close()
		}
	}()
	return ln.Addr().String()
}
