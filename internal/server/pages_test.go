package server

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// browser is a client of the dashboard that signed in with the login form, as a person's
// browser does: it keeps the session cookie, sends its Origin and does not follow redirects.
type browser struct {
	t      *testing.T
	w      *world
	client *http.Client
}

func (w *world) signIn() *browser {
	w.t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &browser{t: w.t, w: w, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if st, _, _ := b.post("/login", url.Values{"token": {token}}); st != http.StatusSeeOther {
		w.t.Fatalf("POST /login: %d", st)
	}
	return b
}

// get fetches a page and returns its status and HTML.
func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	resp, err := b.client.Get(b.w.http.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// post sends a form from the dashboard's own origin and returns the status, the body and where
// it redirects.
func (b *browser) post(path string, form url.Values) (int, string, string) {
	b.t.Helper()
	req, _ := http.NewRequest("POST", b.w.http.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.w.http.URL)
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header.Get("Location")
}

// csrf is the token of the page's forms.
func csrf(t *testing.T, html string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("the page has no form with a csrf token")
	}
	return m[1]
}

// runOnce runs the site from the dashboard and waits for the run to end; it returns the run's
// page path.
func (b *browser) runOnce(action string, form url.Values) string {
	b.t.Helper()
	_, html := b.get("/sites/filesite")
	form.Set("csrf", csrf(b.t, html))
	st, body, loc := b.post("/sites/filesite/"+action, form)
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/runs/") {
		b.t.Fatalf("POST /sites/filesite/%s: %d to %q: %s", action, st, loc, body)
	}
	b.w.waitFinished("filesite")
	return loc
}

func TestPagesNeedASession(t *testing.T) {
	w := newWorld(t)
	for _, path := range []string{"/", "/sites/filesite", "/runs/1", "/sites/filesite/urls?q=x"} {
		resp, err := http.Get(w.http.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `name="token"`) {
			t.Errorf("GET %s without a session: %d, want 401 and the login form", path, resp.StatusCode)
		}
		if !strings.Contains(string(body), "The admin token is the <code>adminToken</code> setting of the configuration") {
			t.Errorf("GET %s without a session: the login form does not say where the token comes from:\n%s", path, body)
		}
	}
}

// TestEveryAnswerSaysNosniff: every answer of serve — its pages and the login form, signed in or
// not, the API's JSON, its errors, the feeds — tells browsers not to guess another type.
func TestEveryAnswerSaysNosniff(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	check := func(what string, resp *http.Response) {
		t.Helper()
		resp.Body.Close()
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: HTTP %d, %s, X-Content-Type-Options %q; want nosniff", what, resp.StatusCode, resp.Header.Get("Content-Type"), got)
		}
	}
	for _, path := range []string{"/", "/sites/filesite", "/sites/nope", "/runs/1", "/healthz", "/feeds/filesite.xml", "/nowhere"} {
		resp, err := b.client.Get(w.http.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		check("GET "+path+" signed in", resp)
		if resp, err = http.Get(w.http.URL + path); err != nil {
			t.Fatal(err)
		}
		check("GET "+path, resp)
	}
	resp, err := http.PostForm(w.http.URL+"/login", url.Values{"token": {"wrong"}})
	if err != nil {
		t.Fatal(err)
	}
	check("POST /login with a wrong token", resp)
}

func TestOverviewShowsSitesAttentionFirst(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	b.runOnce("run", url.Values{"channel": {"indexnow"}})
	st, html := b.get("/")
	if st != http.StatusOK {
		t.Fatalf("GET /: %d", st)
	}
	for _, want := range []string{`href="/sites/filesite"`, "<svg", "Bing quota", "resets at 00:00 UTC", "<title>sitepush — overview</title>", "Last error"} {
		if !strings.Contains(html, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
	if !regexp.MustCompile(`failing|needs attention`).MatchString(html) {
		t.Error("the overview does not say the site needs attention after a failed run")
	}
}

func TestSitePageChartsRunsAndCauses(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	run := b.runOnce("run", url.Values{})
	st, html := b.get("/sites/filesite")
	if st != http.StatusOK {
		t.Fatalf("GET /sites/filesite: %d", st)
	}
	if n := strings.Count(html, `<svg class="chart"`); n != 3 || !strings.Contains(html, "over 30 days") || strings.Contains(html, "over 90 days") {
		t.Errorf("%d charts, want one a channel, of 30 days", n)
	}
	if _, html90 := b.get("/sites/filesite?days=90"); strings.Count(html90, `<svg class="chart"`) != 3 || !strings.Contains(html90, "over 90 days") {
		t.Errorf("?days=90 does not show each channel's chart over 90 days")
	}
	for _, want := range []string{`href="` + strings.SplitN(run, "?", 2)[0] + `"`, "HTTP 503", "Fix:", "accepted", "held by quota: the most URLs a run of the day held back", "1 day with activity",
		"From sent to seen", "<dt>Submitted</dt><dd>25 URLs accepted by IndexNow or Bing</dd>", "<dt>Crawled by Bing</dt><dd>0 % of the URLs submitted (0)</dd>",
		"<dt>Removals announced</dt><dd>0 through IndexNow</dd>",
		`name="csrf"`, `action="/sites/filesite/retry"`, `&#34;apiKey&#34;: &#34;` + config.MaskKey(bingKey)} {
		if !strings.Contains(html, want) {
			t.Errorf("the site page lacks %q", want)
		}
	}
	if strings.Contains(html, bingKey) {
		t.Error("the site page shows Bing's API key unmasked")
	}
	if st, _ := b.get("/sites/nosuch"); st != http.StatusNotFound {
		t.Errorf("GET /sites/nosuch: %d, want 404", st)
	}
}

func TestRunPageShowsFailedURLs(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	run := b.runOnce("run", url.Values{"channel": {"indexnow"}})
	st, html := b.get(run)
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d", run, st)
	}
	for _, want := range []string{"/blog/post-3", "503", "Endpoints", "indexnow", "HTTP 503 ×4", `<td class="n" data-label="retries">3</td>`} {
		if !strings.Contains(html, want) {
			t.Errorf("the run page lacks %q", want)
		}
	}
	if strings.Contains(html, "URLs that failed or were rejected") {
		t.Error("a run that names its URLs lists its failures a second time, from the deliveries")
	}
	// A run that names none — recorded before runs named theirs — is told by the deliveries whose
	// last attempt failed within it.
	if _, err := storetest.Raw(t, w.state).Exec(`DELETE FROM run_urls`); err != nil {
		t.Fatal(err)
	}
	if _, html = b.get(run); !strings.Contains(html, "URLs that failed or were rejected") || !strings.Contains(html, "/blog/post-3") ||
		!strings.Contains(html, "This run names none of the URLs it answered") || strings.Contains(html, "more not listed") {
		t.Errorf("a run that names no URL does not list the URLs that failed within it:\n%s", html)
	}
	if st, _ := b.get("/runs/999999"); st != http.StatusNotFound {
		t.Errorf("GET /runs/999999: %d, want 404", st)
	}
}

func TestURLStory(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	b.runOnce("run", url.Values{"channel": {"indexnow"}})
	one := w.site.URL + "/blog/post-7"
	st, html := b.get("/sites/filesite/urls?q=" + url.QueryEscape(one))
	if st != http.StatusOK || strings.Count(html, `<h2 class="url">`) != 1 {
		t.Fatalf("the story of %s: %d, %d URLs", one, st, strings.Count(html, `<h2 class="url">`))
	}
	for _, want := range []string{"due: failed", "HTTP 503", "due: new", "First seen", "1 failed attempt kept"} {
		if !strings.Contains(html, want) {
			t.Errorf("the story of %s lacks %q", one, want)
		}
	}
	_, html = b.get("/sites/filesite/urls?q=" + url.QueryEscape(w.site.URL+"/blog/post-2"))
	if n := strings.Count(html, `<h2 class="url">`); n != 1 {
		t.Errorf("…/post-2, a URL, found %d URLs, want it alone", n)
	}
	_, html = b.get("/sites/filesite/urls?q=" + url.QueryEscape(w.site.URL+"/blog/"))
	if n := strings.Count(html, `<h2 class="url">`); n != 25 {
		t.Errorf("the prefix …/blog/ found %d URLs, want 25", n)
	}
}

// TestURLStoryTellsWhatContentChecksFound: the URL page says in one line where a page stands in
// the content checks, and its due column follows the one rule: a suspect is not due as changed,
// a page found changed since IndexNow was sent it is.
func TestURLStoryTellsWhatContentChecksFound(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	lm, sent := time.Now().Add(-3*time.Hour).UTC(), time.Now().Add(-2*time.Hour).UTC()
	urls := checkedPages(t, w, lm, sent)
	indexnow := func(html string) string {
		t.Helper()
		_, row, ok := strings.Cut(html, `<th scope="row">indexnow</th>`)
		if !ok {
			t.Fatalf("the page has no row for indexnow:\n%s", html)
		}
		row, _, _ = strings.Cut(row, "</tr>")
		return row
	}
	for _, tc := range []struct{ name, line, due string }{
		{"trusted", "<dt>Content</dt><dd>its sitemap&#39;s lastmods are trusted: not checked</dd>", "not due"},
		{"suspect", "<dt>Content</dt><dd>lastmod moved on " + utc(lm.Add(time.Hour)) + ", not checked since (a suspect: checked first next run)</dd>", "not due"},
		{"same", "content the same as sent to indexnow on " + utc(sent) + "</dd>", "not due"},
		{"changed", "content changed since indexnow was sent it: due</dd>", "due: changed"},
	} {
		st, html := b.get("/sites/filesite/urls?q=" + url.QueryEscape(urls[tc.name]))
		if st != http.StatusOK || !strings.Contains(html, tc.line) {
			t.Errorf("the story of %s: %d, lacks %q", tc.name, st, tc.line)
		}
		if row := indexnow(html); !strings.Contains(row, tc.due) {
			t.Errorf("the story of %s: indexnow's row %s, want %q", tc.name, row, tc.due)
		}
	}
}

func TestActionsNeedTheCSRFToken(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	for _, action := range []string{"run", "retry", "resubmit"} {
		if st, _, _ := b.post("/sites/filesite/"+action, url.Values{"channel": {"all"}}); st != http.StatusForbidden {
			t.Errorf("POST %s without csrf: %d, want 403", action, st)
		}
		if st, _, _ := b.post("/sites/filesite/"+action, url.Values{"csrf": {"forged"}}); st != http.StatusForbidden {
			t.Errorf("POST %s with a forged csrf: %d, want 403", action, st)
		}
	}
	other := w.signIn()
	_, html := other.get("/sites/filesite")
	req, _ := http.NewRequest("POST", w.http.URL+"/sites/filesite/run", strings.NewReader(url.Values{"csrf": {csrf(t, html)}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	resp, err := other.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST run from another origin with the token: %d, want 403", resp.StatusCode)
	}
	if n := len(w.engine.Submissions()); n != 0 {
		t.Errorf("refused forms reached the engine %d times", n)
	}
}

func TestRetryFailedSendsOnlyTheFailed(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	b.runOnce("run", url.Values{"channel": {"indexnow"}})
	// a new page appears: the retry must leave it for the next run
	w.files["/sitemap.xml"] = strings.Replace(w.files["/sitemap.xml"], "</urlset>", "<url><loc>"+w.site.URL+"/blog/new</loc></url></urlset>", 1)
	before := len(w.engine.Accepted())
	b.runOnce("retry", url.Values{"channel": {"indexnow"}})
	sent := w.engine.Accepted()[before:]
	if len(sent) != 25 {
		t.Errorf("retry failed sent %d URLs, want the 25 that failed", len(sent))
	}
	for _, u := range sent {
		if strings.HasSuffix(u, "/blog/new") {
			t.Error("retry failed sent a URL that never failed")
		}
	}
}

func TestResubmitOneURL(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	b.runOnce("run", url.Values{"channel": {"indexnow"}})
	one := w.site.URL + "/blog/post-4"
	before := len(w.engine.Accepted())
	b.runOnce("resubmit", url.Values{"channel": {"indexnow"}, "url": {one}})
	if sent := w.engine.Accepted()[before:]; len(sent) != 1 || sent[0] != one {
		t.Errorf("resubmit sent %v, want only %s (delivered and unchanged: forced)", sent, one)
	}
	_, html := b.get("/sites/filesite")
	st, body, _ := b.post("/sites/filesite/resubmit", url.Values{"csrf": {csrf(t, html)}, "url": {"https://elsewhere.example/x"}})
	want := "The URL was not sent, as site filesite does not take it: https://elsewhere.example/x: on host elsewhere.example, not the site&#39;s"
	if st != http.StatusBadRequest || !strings.Contains(body, want) {
		t.Errorf("resubmit of another host's URL: %d, want 400 saying %q:\n%s", st, want, body)
	}
	long := w.site.URL + "/" + strings.Repeat("x", runner.MaxURLLength)
	st, body, _ = b.post("/sites/filesite/resubmit", url.Values{"csrf": {csrf(t, html)}, "url": {long}})
	if st != http.StatusBadRequest || strings.Contains(body, long[:250]) || !strings.Contains(body, long[:200]+"…: longer than 2048 characters") {
		t.Errorf("resubmit of a URL too long: %d, want 400 echoing its first 200 bytes:\n%s", st, body)
	}
}

// TestResubmitBeforeTheFirstRun: a site whose backlog leaves URLs out never ran, so a URL sent
// now would make its first run send every page: the dashboard says so, and what to do.
func TestResubmitBeforeTheFirstRun(t *testing.T) {
	w := newWorld(t)
	body := `{"id": "fresh", "sitemaps": ["` + w.site.URL + `/sitemap.xml"], "schedule": "0 0 1 1 *", "backlog": "none",
		"indexnow": {"enabled": true, "key": "` + siteKey + `"}}`
	if code, out := w.call("POST", "/api/sites", body); code != http.StatusCreated {
		t.Fatalf("creating the site: %d %s", code, out)
	}
	b := w.signIn()
	_, html := b.get("/sites/fresh")
	st, page, _ := b.post("/sites/fresh/resubmit", url.Values{"csrf": {csrf(t, html)}, "url": {w.site.URL + "/blog/post-1"}})
	if want := "The run did not start: the site&#39;s first run has not happened: site &#34;fresh&#34; has backlog none on indexnow and never ran"; st != http.StatusConflict || !strings.Contains(page, want) {
		t.Errorf("resubmit before the first run: %d, want 409 saying %q:\n%s", st, want, page)
	}
}

// TestFlashesAreFixedMessages: what a site's page says an action did comes from a fixed code in
// the link, never from text of the query, which anyone can write into a link.
func TestFlashesAreFixedMessages(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	for _, q := range []string{"?did=nofailed&why=INJECTEDTEXT", "?did=INJECTEDTEXT", "?did=busy&why=INJECTEDTEXT"} {
		if st, html := b.get("/sites/filesite" + q); st != http.StatusOK || strings.Contains(html, "INJECTEDTEXT") {
			t.Errorf("GET /sites/filesite%s: %d, and the page holds the query's text", q, st)
		}
	}
	if _, html := b.get("/sites/filesite?did=queued"); !strings.Contains(html, "The run is queued: every slot of serve.concurrency is taken") {
		t.Error("?did=queued does not say the run is queued")
	}
}

// TestEachChannelsNumbersAreItsOwnLastRuns: after a run of one channel, the others' numbers on the
// overview and the site's page are those of their own last run, which is linked — not zeros
// read from a run that did not deliver on them.
func TestEachChannelsNumbersAreItsOwnLastRuns(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	first := b.runOnce("run", url.Values{})
	b.runOnce("run", url.Values{"channel": {"indexnow"}})
	id := strings.TrimPrefix(strings.SplitN(first, "?", 2)[0], "/runs/")
	bingRow := regexp.MustCompile(`<th scope="row">bing <a class="small" href="/runs/` + id + `">run #` + id + `</a></th><td class="n">(\d+)</td><td class="n">(\d+)</td>`)
	for _, path := range []string{"/", "/sites/filesite"} {
		_, html := b.get(path)
		m := bingRow.FindStringSubmatch(html)
		if m == nil || m[2] == "0" {
			t.Errorf("%s: Bing's row does not show what its own last run (#%s) sent: %v", path, id, m)
		}
	}
}

// TestHeldByQuotaIsCountedOnceADay: the URLs a quota holds back wait run after run; a day's bar
// shows the most a run of the day held, not their sum.
func TestHeldByQuotaIsCountedOnceADay(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	today := w.api.now().UTC().Truncate(24 * time.Hour)
	for i, held := range []int{3951, 3900, 3940} {
		rec := &model.Record{Site: "filesite", Trigger: "schedule", StartedAt: today.Add(time.Duration(i+1) * time.Hour)}
		if err := w.store.SaveRun(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Status, rec.FinishedAt = model.StatusOK, rec.StartedAt.Add(time.Minute)
		rec.Channels = map[string]*model.ChannelStats{"bing": {Due: held + 100, Submitted: 100, Held: held}}
		if err := w.store.SaveRun(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	charts, err := w.api.charts(ctx, "filesite", []string{"bing"}, historyDays)
	if err != nil {
		t.Fatal(err)
	}
	if rows := charts[0].Rows; len(rows) != 1 || rows[0].Held != 3951 {
		t.Errorf("today's row: %+v; want 3,951 held, the most a run held", rows)
	}
}

// TestARunsThrottledWaitIsWords: the run page says how long a channel waited for an engine's
// 429 in words, with no symbol a font may lack.
func TestARunsThrottledWaitIsWords(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	w.engine.Fail(enginetest.Fault{Status: 429, RetryAfter: "1"})
	run := b.runOnce("run", url.Values{"channel": {"indexnow"}})
	_, html := b.get(strings.SplitN(run, "?", 2)[0])
	if !regexp.MustCompile(`<span class="st-partial">waited \d`).MatchString(html) || strings.Contains(html, "⏸") {
		t.Errorf("the run page's throttled cell: %s", regexp.MustCompile(`(?s)throttled \(waited\).{0,900}`).FindString(html))
	}
}

// TestALiveRunShowsItsWait: while IndexNow makes a run wait (429, Retry-After), the run's page
// shows the wait, its time left and its cause, and what the run has done so far — not the bare
// start the state holds until the run ends.
func TestALiveRunShowsItsWait(t *testing.T) {
	w := newWorld(t)
	b := w.signIn()
	w.engine.Fail(enginetest.Fault{Status: 429, RetryAfter: "4"})
	_, html := b.get("/sites/filesite")
	st, body, loc := b.post("/sites/filesite/run", url.Values{"csrf": {csrf(t, html)}, "channel": {"indexnow"}})
	if st != http.StatusSeeOther {
		t.Fatalf("POST run: %d %s", st, body)
	}
	page := strings.SplitN(loc, "?", 2)[0]
	var during string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, during = b.get(page); strings.Contains(during, "indexnow waits") {
			break
		}
	}
	if !regexp.MustCompile(`<strong>indexnow waits [1-4] s</strong> more, until .*HTTP 429`).MatchString(during) ||
		!strings.Contains(during, `<th scope="row">indexnow</th><td class="n" data-label="due">25</td>`) {
		t.Errorf("the run's page during the wait:\n%s", during[max(0, strings.Index(during, "<main")):])
	}
	w.waitFinished("filesite")
	if _, after := b.get(page); strings.Contains(after, "indexnow waits") {
		t.Error("the page still shows the wait once the run ended")
	}
}
