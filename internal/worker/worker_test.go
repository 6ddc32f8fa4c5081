package worker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/kvstate"
)

const (
	testKey   = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	testToken = "worker-admin-token-123"
	bingKey   = "bing-secret-key-456"
)

// world is a website, IndexNow and Bing on loopback, and a Worker over a KV in memory, as
// wrangler dev runs it: each tick and each request an invocation of its own.
type world struct {
	t        *testing.T
	files    enginetest.Files
	host     *host // serves files
	site     *httptest.Server
	engine   *enginetest.IndexNow
	indexnow string // the engine's endpoint
	bing     *enginetest.Bing
	bingURL  string
	kv       *kvstate.MemKV
	vars     map[string]string
	log      bytes.Buffer
	requests atomic.Int64 // that reached the world from the Worker
	clock    atomic.Pointer[time.Time]
	pending  sync.WaitGroup
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, files: enginetest.Files{"/" + testKey + ".txt": testKey}, kv: &kvstate.MemKV{}, vars: map[string]string{}}
	w.clock.Store(&t0)
	w.kv.Now = w.now
	count := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.UserAgent(), "Go-http-client") { // the engine's own fetch of the key
				w.requests.Add(1)
			}
			h.ServeHTTP(rw, r)
		})
	}
	w.host = &host{files: w.files}
	w.site = httptest.NewServer(count(w.host))
	t.Cleanup(w.site.Close)
	w.engine = &enginetest.IndexNow{FetchKey: enginetest.FetchOverHTTP}
	engine := httptest.NewServer(count(w.engine))
	t.Cleanup(engine.Close)
	w.indexnow = engine.URL + "/indexnow"
	w.bing = &enginetest.Bing{Keys: map[string]int{bingKey: 1000}}
	bing := httptest.NewServer(count(w.bing))
	t.Cleanup(bing.Close)
	w.bingURL = bing.URL + "/webmaster/api.svc/json"
	w.vars["SITEPUSH_ADMIN_TOKEN"], w.vars["BING_KEY"] = testToken, bingKey
	w.vars[SubrequestsVar] = "1000" // the Paid plan's; the tests of a smaller budget set theirs
	w.vars[ConfigVar] = fmt.Sprintf(`{"adminToken": "${SITEPUSH_ADMIN_TOKEN}", "defaults": {"schedule": "* * * * *",
		"indexnow": {"endpoints": ["%s"], "interval": "1ms"}}, "sites": [
		{"id": "demo", "sitemaps": ["%s/sitemap.xml"], "indexnow": {"enabled": true, "key": "%s"},
		 "bing": {"enabled": true, "apiKey": "${BING_KEY}", "dailyQuota": 40, "endpoint": "%s"},
		 "feed": {"enabled": true, "fetchTitles": false, "baselineItems": 5}}]}`, w.indexnow, w.site.URL, testKey, w.bingURL)
	return w
}

// app is the Worker as an invocation finds it.
func (w *world) app() *App {
	return New(Env{
		Var:       func(name string) (string, bool) { v, ok := w.vars[name]; return v, ok },
		KV:        w.kv,
		Transport: http.DefaultTransport,
		WaitUntil: func(f func()) { w.pending.Go(f) },
		Logger:    slog.New(slog.NewTextHandler(&w.log, nil)),
		Now:       w.now,
		// As the JS module digests the build and the vars: a change of the vars is a new plan.
		Fingerprint: fmt.Sprintf("%x", sha256.Sum256([]byte(fmt.Sprint(w.vars)))),
	})
}

// now is the world's clock: the last tick's time, as on Cloudflare where a tick's
// scheduledTime is about when it runs.
func (w *world) now() time.Time { return *w.clock.Load() }

// publish writes the sitemap: the pages, each "path lastmod", and the pages themselves, which
// Bing's preflight fetches.
func (w *world) publish(pages ...string) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, p := range pages {
		path, lm, _ := strings.Cut(p, " ")
		fmt.Fprintf(&b, "<url><loc>%s%s</loc><lastmod>%s</lastmod></url>", w.site.URL, path, lm)
		w.files[path] = "<!doctype html><title>" + path + "</title>"
	}
	b.WriteString("</urlset>")
	w.files["/sitemap.xml"] = b.String()
}

func (w *world) tick(at time.Time) {
	w.t.Helper()
	w.clock.Store(&at)
	if _, err := w.app().Tick(context.Background(), at); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) call(method, path, token string) (int, string) {
	r := httptest.NewRequest(method, path, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	w.app().ServeHTTP(rec, r)
	w.pending.Wait()
	return rec.Code, rec.Body.String()
}

// pages are n pages of a sitemap whose lastmods tell them apart, as a site that dates each page
// writes them: page i's is 3i minutes after the start of the day lastmod gives — trusted
// (changes.detect auto), so that a page is changed when its lastmod moves.
func pages(n int, lastmod string) []string {
	day, err := time.Parse(time.DateOnly, lastmod)
	if err != nil {
		panic(err)
	}
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("/p/%d %s", i, day.Add(time.Duration(3*i)*time.Minute).Format(time.RFC3339)))
	}
	return out
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestTicks(t *testing.T) {
	w := newWorld(t)
	w.publish(pages(60, "2026-01-01")...)
	w.tick(t0)
	if got := w.engine.Accepted(); len(got) != 60 || len(w.bing.Accepted()) != 40 {
		t.Fatalf("first tick: IndexNow %d, Bing %d; want 60 and the quota's 40\n%s", len(got), len(w.bing.Accepted()), w.log.String())
	}
	w.tick(t0.Add(time.Minute))
	if got := w.engine.Accepted(); len(got) != 60 || len(w.bing.Accepted()) != 40 {
		t.Errorf("a tick with nothing new sent again: IndexNow %d, Bing %d", len(got), len(w.bing.Accepted()))
	}
	changed := pages(60, "2026-01-01")
	changed[3], changed[7] = "/p/3 2026-02-01", "/p/7 2026-02-01"
	w.publish(append(changed, "/p/new 2026-02-02")...)
	w.tick(t0.Add(2 * time.Minute))
	got := w.engine.Accepted()[60:]
	slices.Sort(got)
	if want := []string{w.site.URL + "/p/3", w.site.URL + "/p/7", w.site.URL + "/p/new"}; !slices.Equal(got, want) {
		t.Errorf("after 2 changed and 1 new: IndexNow got %v, want %v", got, want)
	}
	// Not due: the schedule has not come since the last run. The first tick under the new
	// configuration reads the site's state and plans again; the next reads the plan alone.
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"* * * * *"`, `"0 0 * * *"`, 1)
	for i, want := range []int{1, 0} {
		before := w.kv.Ops()
		w.tick(t0.Add(time.Duration(3+i) * time.Minute))
		after := w.kv.Ops()
		if writes := after.Writes - before.Writes; writes != want || after.Deletes != before.Deletes {
			t.Errorf("tick %d with nothing due wrote %d values (want %d) and deleted %d", i+1, writes, want, after.Deletes-before.Deletes)
		}
		if i == 1 && after.Total()-before.Total() != 1 {
			t.Errorf("a tick with nothing due, under the plan it made, made %d KV operations; want one read (the schedule)", after.Total()-before.Total())
		}
	}
	if got := w.engine.Accepted(); len(got) != 63 {
		t.Errorf("the ticks with nothing due sent %d URLs", len(got)-63)
	}
}

// TestTheTicksClock runs ticks whose scheduledTime is well behind the wall clock (wrangler dev
// --test-scheduled with a time= of the past): a tick's runs are timed on its own clock, so that
// the next tick finds the site's schedule come again.
func TestTheTicksClock(t *testing.T) {
	w := newWorld(t)
	w.publish(pages(5, "2026-01-01")...)
	wall := t0.Add(20 * time.Minute)
	w.clock.Store(&wall)
	app := w.app()
	for i, lm := range []string{"2026-01-01", "2026-02-01"} {
		w.publish(pages(5, lm)...)
		if _, err := app.Tick(context.Background(), t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(w.engine.Accepted()); got != 10 {
		t.Errorf("two ticks a minute apart, 20 minutes behind the wall clock, sent %d URLs; want 5, then the 5 changed", got)
	}
}

// TestASubrequestBudget spreads a GET-mode site over several ticks: each tick makes at most the
// budget's requests, the run stops and records, the next goes on, and no URL is sent twice.
func TestASubrequestBudget(t *testing.T) {
	w := newWorld(t)
	w.vars[SubrequestsVar] = "10"
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"interval": "1ms"`, `"interval": "1ms", "method": "get"`, 1)
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"bing": {"enabled": true`, `"bing": {"enabled": false`, 1)
	w.publish(pages(30, "2026-01-01")...)
	ticks := 0
	for ; ticks < 10 && len(w.engine.Accepted()) < 30; ticks++ {
		before := w.requests.Load()
		w.tick(t0.Add(time.Duration(ticks) * time.Minute))
		if n := w.requests.Load() - before; n > 10 {
			t.Fatalf("tick %d made %d requests with %s=10", ticks+1, n, SubrequestsVar)
		}
	}
	got := w.engine.Accepted()
	seen := map[string]int{}
	for _, u := range got {
		seen[u]++
	}
	if len(seen) != 30 || len(got) != 30 || ticks < 4 {
		t.Errorf("after %d ticks: %d URLs sent, %d distinct; want 30 once each, over at least 4 ticks\n%s", ticks, len(got), len(seen), w.log.String())
	}
	if !strings.Contains(w.log.String(), "subrequests of this invocation are spent") {
		t.Errorf("the log does not say why the runs stopped:\n%s", w.log.String())
	}
}

// TestAnIndexOverSeveralTicks reads an index of 30 sitemaps under a budget of 12 subrequests a
// tick: each tick delivers what the last one read, reads the index again and goes on from the
// sitemaps not read yet, so that every URL goes once, by the tick after the one that reads the
// last sitemap.
func TestAnIndexOverSeveralTicks(t *testing.T) {
	w := newWorld(t)
	w.vars[SubrequestsVar] = "12"
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"bing": {"enabled": true`, `"bing": {"enabled": false`, 1)
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"feed": {"enabled": true`, `"feed": {"enabled": false`, 1)
	var index strings.Builder
	index.WriteString("<sitemapindex>")
	want := map[string]bool{}
	for c := range 30 {
		var child strings.Builder
		child.WriteString("<urlset>")
		for i := range 10 {
			u := fmt.Sprintf("%s/p/%d-%d", w.site.URL, c, i)
			want[u] = true
			fmt.Fprintf(&child, "<url><loc>%s</loc><lastmod>2026-01-%02d</lastmod></url>", u, 1+c%28)
		}
		child.WriteString("</urlset>")
		w.files[fmt.Sprintf("/child-%d.xml", c)] = child.String()
		fmt.Fprintf(&index, "<sitemap><loc>%s/child-%d.xml</loc></sitemap>", w.site.URL, c)
	}
	index.WriteString("</sitemapindex>")
	w.files["/sitemap.xml"] = index.String()
	ticks := 0
	for ; ticks < 6 && len(w.engine.Accepted()) < len(want); ticks++ {
		w.tick(t0.Add(time.Duration(ticks) * time.Minute))
	}
	got := w.engine.Accepted()
	seen := map[string]int{}
	for _, u := range got {
		seen[u]++
	}
	// 31 files at 10 a tick (12 less the IndexNow request and the one that spends the budget)
	// take 4 ticks to read.
	if len(seen) != len(want) || len(got) != len(want) || ticks > 5 {
		t.Errorf("after %d ticks: %d URLs sent, %d distinct; want %d once each within 5 ticks\n%s", ticks, len(got), len(seen), len(want), w.log.String())
	}
}

func TestHTTPFace(t *testing.T) {
	w := newWorld(t)
	w.publish(pages(8, "2026-01-01")...)
	w.tick(t0)
	for _, route := range []string{"/status?site=demo", "/api/stats/daily", "/trigger?site=demo"} {
		for _, tok := range []string{"", "wrong"} {
			if code, _ := w.call("GET", route, tok); code != http.StatusUnauthorized {
				t.Errorf("%s with token %q: %d, want 401", route, tok, code)
			}
		}
	}
	code, body := w.call("GET", "/status?site=DEMO", testToken)
	var status struct {
		SiteID        string         `json:"siteId"`
		LastExecution map[string]any `json:"lastExecution"`
	}
	json.Unmarshal([]byte(body), &status)
	if code != 200 || status.SiteID != "demo" || status.LastExecution["status"] != "ok" || strings.Contains(body, bingKey) {
		t.Errorf("/status: %d %s", code, body)
	}
	w.publish(append(pages(8, "2026-01-01"), "/p/late 2026-02-01")...)
	code, body = w.call("POST", "/trigger?site=demo&channel=indexnow", testToken)
	if code != http.StatusAccepted || !strings.Contains(body, `"runId":2`) || !slices.Contains(w.engine.Accepted(), w.site.URL+"/p/late") {
		t.Errorf("/trigger: %d %s; IndexNow got %d", code, body, len(w.engine.Accepted()))
	}
	if code, body := w.call("GET", "/trigger?site=demo&channel=nope", testToken); code != 400 || !strings.Contains(body, "channel must be one of") {
		t.Errorf("/trigger with an unknown channel: %d %s", code, body)
	}
	if code, body := w.call("GET", "/feeds/demo.xml", ""); code != 200 || !strings.Contains(body, "<rss") || strings.Count(body, "<item>") != 5 || !strings.Contains(body, "<link>"+w.site.URL+"/p/") {
		t.Errorf("/feeds/demo.xml, the baseline's 5 items of the site's pages: %d %s", code, body)
	}
	if code, body := w.call("GET", "/api/stats/daily?days=2", testToken); code != 200 || !strings.Contains(body, `"indexnow":{"total":`) {
		t.Errorf("/api/stats/daily: %d %s", code, body)
	}
	if code, body := w.call("GET", "/healthz", ""); code != 200 || body != "{\"status\":\"ok\"}\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := w.call("DELETE", "/api/sites/demo", testToken); code != 404 || !strings.Contains(body, "no route") {
		t.Errorf("no site CRUD on the Worker: %d %s", code, body)
	}
}

func TestABadConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
	}{
		{"missing", "", "SITEPUSH_CONFIG is not set"},
		{"state", `{"state": "sqlite:x.db", "sites": []}`, "state: is not used by the Worker"},
		{"metrics", `{"metricsToken": "x", "sites": []}`, "metricsToken: is not used by the Worker (the Worker has no /metrics)"},
		{"metrics per site", `{"metrics": {"perSite": "none"}, "sites": []}`, "metrics: is not used by the Worker (the Worker has no /metrics)"},
		{"serve", `{"serve": {"concurrency": 8}, "sites": []}`, "serve: is not used by the Worker (the Worker runs one tick's due sites itself); remove it"},
		{"an unset token", `{"adminToken": "${SITEPUSH_UNSET_TOKEN}", "sites": []}`,
			"SITEPUSH_CONFIG: adminToken: environment variable SITEPUSH_UNSET_TOKEN is not set"},
		{"an unset key", `{"sites": [{"id": "a", "sitemaps": ["https://a.example/s.xml"], "bing": {"enabled": true, "apiKey": "${SITEPUSH_UNSET_BING}"}}]}`,
			"SITEPUSH_CONFIG: sites[0].bing.apiKey: environment variable SITEPUSH_UNSET_BING is not set"},
		{"a feed backlog", `{"sites": [{"id": "a", "sitemaps": ["https://a.example/s.xml"], "feed": {"enabled": true, "backlog": "none"}}]}`,
			`site "a": feed.backlog is not a setting`},
		{"a file", `{"sites": [{"id": "a", "baseUrl": "https://a.example", "sitemaps": ["sitemap.xml"], "indexnow": {"enabled": true, "key": "abcdefgh"}}]}`,
			`site "a": sitemaps[0] "sitemap.xml" must be an http(s) URL`},
		{"a built site", `{"sites": [{"id": "a", "sitemaps": ["https://a.example/s.xml"], "indexnow": {"enabled": true, "key": "abcdefgh"}, "changes": {"dir": "public"}}]}`,
			`site "a": changes.dir cannot be read by the Worker, which has no files: it fetches the pages it checks; remove changes.dir`},
		{"google", `{"sites": [{"id": "a", "sitemaps": ["https://a.example/s.xml"], "indexnow": {"enabled": true, "key": "abcdefgh"},
			"google": {"enabled": true, "credentials": "/k.json", "property": "sc-domain:a.example"}}]}`,
			`site "a": google.enabled: the Worker does not talk to Google`},
		{"a rule", `{"sites": [{"id": "a", "sitemaps": ["https://a.example/s.xml"], "bing": {"enabled": true}}]}`,
			`site "a": bing.apiKey is required when bing.enabled is true`},
		{"no channel on", `{"sites": [{"id": "a", "sitemaps": ["https://a.example/s.xml"], "indexnow": {"key": "abcdefgh"}}]}`,
			`site "a": no channel is on, so a run would read its sitemaps and send nothing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			if tc.config == "" {
				delete(w.vars, ConfigVar)
			} else {
				w.vars[ConfigVar] = tc.config
			}
			if _, err := w.app().Tick(context.Background(), t0); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("tick: %v, want %q", err, tc.want)
			}
			code, body := w.call("GET", "/healthz", "")
			var answer struct{ Error string }
			if json.Unmarshal([]byte(body), &answer); code != 500 || !strings.Contains(answer.Error, tc.want) {
				t.Errorf("/healthz: %d %s", code, body)
			}
			if w.kv.Ops().Total() != 0 {
				t.Errorf("a bad configuration touched the state: %+v", w.kv.Ops())
			}
		})
	}
	w := newWorld(t)
	w.vars[SubrequestsVar] = "lots"
	if err := w.app().Err(); err == nil || !strings.Contains(err.Error(), "SITEPUSH_SUBREQUESTS \"lots\" must be a whole number") {
		t.Errorf("a bad budget: %v", err)
	}
}

// TestBacklogPerChannelOnTheWorker: the Worker's configuration takes each channel's backlog.
func TestBacklogPerChannelOnTheWorker(t *testing.T) {
	vars := map[string]string{ConfigVar: `{"sites": [{"id": "a", "sitemaps": ["https://a.example/s.xml"], "backlog": "none",
		"indexnow": {"enabled": true, "key": "abcdefgh", "backlog": "168h"}, "bing": {"enabled": true, "apiKey": "k", "backlog": "all"}}]}`}
	cfg, _, err := loadConfig(func(name string) (string, bool) { v, ok := vars[name]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Sites[0]; s.BacklogOf("indexnow") != "168h" || !s.BacklogAll("bing") {
		t.Errorf("indexnow %q, bing %q", s.BacklogOf("indexnow"), s.BacklogOf("bing"))
	}
}

// TestAlertsWithinTheBudget: the budget stops a run early enough that its alerts still go.
func TestAlertsWithinTheBudget(t *testing.T) {
	w := newWorld(t)
	var alerts atomic.Int64
	hook := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.requests.Add(1)
		alerts.Add(1)
	}))
	t.Cleanup(hook.Close)
	w.vars[SubrequestsVar] = "10"
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"interval": "1ms"`, `"interval": "1ms", "method": "get"`, 1)
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `"bing": {"enabled": true`, `"bing": {"enabled": false`, 1)
	w.vars[ConfigVar] = strings.Replace(w.vars[ConfigVar], `{"adminToken"`, `{"webhook": {"url": "`+hook.URL+`", "failureRate": 0.2}, "adminToken"`, 1)
	for range 10 {
		w.engine.Fail(enginetest.Fault{Status: 400, Message: "bad url"})
	}
	w.publish(pages(30, "2026-01-01")...)
	w.tick(t0)
	if n := w.requests.Load(); n > 10 || alerts.Load() != 1 {
		t.Errorf("the tick made %d requests with %s=10, and sent %d alerts; want at most 10, and the alert\n%s", n, SubrequestsVar, alerts.Load(), w.log.String())
	}
}

// TestTheFeedSaysItIsTheWorkers: the feed's atom:link rel="self" is where the Worker serves it —
// publicUrl's /feeds/{id}.xml, else the origin the request came to — and feed.url when given; never
// the website's /feed.xml, which nothing writes on Workers.
func TestTheFeedSaysItIsTheWorkers(t *testing.T) {
	w := newWorld(t)
	w.publish(pages(3, "2026-01-01")...)
	w.tick(t0)
	original := w.vars[ConfigVar]
	for _, tc := range []struct {
		name, from, to, target, want string
	}{
		{"no publicUrl", "", "", "https://sitepush.acme.workers.dev/feeds/demo.xml", "https://sitepush.acme.workers.dev/feeds/demo.xml"},
		{"no publicUrl, a request without a scheme", "", "", "/feeds/demo.xml", "http://example.com/feeds/demo.xml"},
		{"publicUrl", `{"adminToken"`, `{"publicUrl": "https://push.acme.example/", "adminToken"`,
			"https://sitepush.acme.workers.dev/feeds/demo.xml", "https://push.acme.example/feeds/demo.xml"},
		{"feed.url", `"feed": {`, `"feed": {"url": "https://acme.example/news.xml", `,
			"https://sitepush.acme.workers.dev/feeds/demo.xml", "https://acme.example/news.xml"},
	} {
		w.vars[ConfigVar] = strings.Replace(original, tc.from, tc.to, 1)
		rec := httptest.NewRecorder()
		w.app().ServeHTTP(rec, httptest.NewRequest("GET", tc.target, nil))
		want := `<atom:link href="` + tc.want + `" rel="self"`
		if body := rec.Body.String(); rec.Code != 200 || strings.Count(body, "<item>") != 3 || !strings.Contains(body, want) {
			t.Errorf("%s: GET %s: %d, want %s in %s", tc.name, tc.target, rec.Code, want, body)
		}
	}
}
