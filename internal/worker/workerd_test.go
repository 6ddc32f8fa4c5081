//go:build unix

package worker

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/enginetest"
)

// This file runs the Worker as Cloudflare would, built to WebAssembly by workers/build.sh,
// under wrangler dev's local runtime (workerd) with a local KV namespace, against a website,
// IndexNow and Bing on loopback. It installs wrangler as workers/package-lock.json pins it
// (npm --prefix workers ci) when it is not there. Without npm the tests are skipped, unless
// SITEPUSH_TEST_WORKERD is set (as .ci/run sets it), when they fail.

// workerd is a Worker running under wrangler dev.
type workerd struct {
	t    testing.TB
	base string
	log  *enginetest.Log
	cmd  *exec.Cmd
	stop func() // stops wrangler dev, once
}

// prepare installs wrangler if it is not there, and builds the Worker.
var prepare = sync.OnceValues(func() (string, error) {
	if _, err := os.Stat(wranglerBin()); err != nil {
		out, err := exec.Command("npm", "--prefix", workersDir(), "ci", "--no-audit", "--no-fund").CombinedOutput()
		if err != nil {
			return fmt.Sprintf("npm --prefix workers ci: %v\n%s", err, out), err
		}
	}
	out, err := exec.Command("sh", filepath.Join(workersDir(), "build.sh")).CombinedOutput()
	return fmt.Sprintf("workers/build.sh: %s", out), err
})

func wranglerBin() string { return filepath.Join(workersDir(), "node_modules", ".bin", "wrangler") }

func workersDir() string {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "workers"))
	return dir
}

// whyNotWorkerd says why the Worker's tests do not run, given SITEPUSH_TEST_WORKERD and whether
// npm is installed, and whether that is a failure: "0" skips them (no npm ci, no wrangler); any
// other value requires them, so that CI fails without npm; unset, they run when npm is there.
func whyNotWorkerd(setting string, npm bool) (why string, fail bool) {
	switch {
	case setting == "0":
		return "SITEPUSH_TEST_WORKERD=0: the Worker's tests are skipped", false
	case !npm:
		return "npm is not installed: the Worker's tests need Node 20 and npm, to run wrangler", setting != ""
	}
	return "", false
}

// startWorkerd builds the Worker and starts wrangler dev with vars, from a wrangler.toml of its
// own (the developer's workers/.dev.vars is left alone), and waits for it to answer.
func startWorkerd(t testing.TB, vars map[string]string) *workerd {
	t.Helper()
	return startWorkerdOn(t, vars, t.TempDir())
}

// startWorkerdOn starts the Worker as startWorkerd does, with its wrangler.toml and its local KV
// in dir: a Worker started again on the same dir is a new isolate over the same state.
func startWorkerdOn(t testing.TB, vars map[string]string, dir string) *workerd {
	t.Helper()
	_, lookErr := exec.LookPath("npm")
	if why, fail := whyNotWorkerd(os.Getenv("SITEPUSH_TEST_WORKERD"), lookErr == nil); fail {
		t.Fatal(why)
	} else if why != "" {
		t.Skip(why)
	}
	if out, err := prepare(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wrangler := wranglerBin()
	var toml strings.Builder
	fmt.Fprintf(&toml, "name = \"sitepush-test\"\nmain = %q\ncompatibility_date = \"2025-09-01\"\n", filepath.Join(workersDir(), "src", "index.js"))
	toml.WriteString("kv_namespaces = [{ binding = \"STATE\", id = \"test\" }]\n[vars]\n")
	for k, v := range vars {
		fmt.Fprintf(&toml, "%s = '''%s'''\n", k, v)
	}
	if err := os.WriteFile(filepath.Join(dir, "wrangler.toml"), []byte(toml.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	port, inspector := freePort(t), freePort(t)
	cmd := exec.Command(wrangler, "dev", "--local", "--test-scheduled", "--ip", "127.0.0.1", "--port", fmt.Sprint(port),
		"--inspector-port", fmt.Sprint(inspector), "--persist-to", filepath.Join(dir, "state"), "-c", filepath.Join(dir, "wrangler.toml"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CI=true", "NO_COLOR=1")
	w := &workerd{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port), log: &enginetest.Log{}, cmd: cmd}
	cmd.Stdout, cmd.Stderr = w.log, w.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.stop = sync.OnceFunc(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if t.Failed() {
			t.Logf("wrangler dev:\n%s", w.log.String())
		}
	})
	t.Cleanup(w.stop)
	// Ready once it listens; the Worker itself starts with the first event, which tests time.
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if strings.Contains(w.log.String(), "Ready on http") {
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
				c.Close()
				return w
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("wrangler dev did not listen within 90 s:\n%s", w.log.String())
		}
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (w *workerd) call(method, path, token string) (int, string) {
	w.t.Helper()
	req, _ := http.NewRequest(method, w.base+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// doneLine waits for the Worker's log line of a tick after the log's first from bytes: the line
// that says msg="tick done" (the runtime writes the Worker's console a moment late, so that the
// line of a request answered before the tick, which counts its KV operations too, may come after
// from).
func (w *workerd) doneLine(from int) string {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		log := w.log.String()[from:]
		if i := strings.Index(log, `msg="tick done"`); i >= 0 {
			start := strings.LastIndexByte(log[:i], '\n') + 1
			end := strings.IndexByte(log[i:], '\n')
			if end < 0 {
				end = len(log) - i
			}
			return strings.TrimSpace(log[start : i+end])
		}
		if time.Now().After(deadline) {
			return ""
		}
	}
}

// tick fires the Cron Trigger at at and waits for the handler and its waitUntil work.
func (w *workerd) tick(at time.Time) (int, string) {
	return w.call("GET", fmt.Sprintf("/cdn-cgi/handler/scheduled?cron=*+*+*+*+*&time=%d", at.UnixMilli()), "")
}

// loopback is the fake world on loopback for a Worker under workerd: a website, IndexNow and
// Bing, each counting the requests it gets from the Worker.
type loopback struct {
	mu       sync.Mutex
	files    enginetest.Files
	host     *host // serves files
	site     string
	indexnow string
	engine   *enginetest.IndexNow
	bing     *enginetest.Bing
	bingURL  string
	requests int
	reads    map[string]int // of each path of the website
}

func newLoopback(t testing.TB) *loopback {
	lb := &loopback{files: enginetest.Files{"/" + testKey + ".txt": testKey}, reads: map[string]int{}}
	count := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			lb.mu.Lock()
			if !strings.HasPrefix(r.UserAgent(), "Go-http-client") { // the engine's own fetch of the key
				lb.requests++
				lb.reads[r.URL.Path]++
			}
			h.ServeHTTP(rw, r)
			lb.mu.Unlock()
		})
	}
	start := func(h http.Handler) string {
		s := httptest.NewServer(count(h))
		t.Cleanup(s.Close)
		return s.URL
	}
	lb.host = &host{files: lb.files}
	lb.site = start(lb.host)
	lb.engine = &enginetest.IndexNow{FetchKey: lb.fetchKey}
	lb.indexnow = start(lb.engine) + "/indexnow"
	lb.bing = &enginetest.Bing{Keys: map[string]int{bingKey: 1000}}
	lb.bingURL = start(lb.bing) + "/webmaster/api.svc/json"
	return lb
}

// fetchKey is the engine's fetch of the key file, from the website's files (the website's lock
// is held while the engine answers).
func (lb *loopback) fetchKey(keyLocation string) (string, error) {
	path := strings.TrimPrefix(keyLocation, lb.site)
	if v, ok := lb.files[path]; ok {
		return v, nil
	}
	return "", fmt.Errorf("no %s", keyLocation)
}

// publish writes the sitemap at path, of pages "path lastmod", and the pages themselves (which
// a preflight fetches) unless the test wrote them.
func (lb *loopback) publish(path string, pages ...string) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	lb.mu.Lock()
	defer lb.mu.Unlock()
	for _, p := range pages {
		u, lm, _ := strings.Cut(p, " ")
		fmt.Fprintf(&b, "<url><loc>%s%s</loc>", lb.site, u)
		if lm != "" {
			fmt.Fprintf(&b, "<lastmod>%s</lastmod>", lm)
		}
		b.WriteString("</url>")
		if _, ok := lb.files[u]; !ok {
			lb.files[u] = "<!doctype html><title>" + u + "</title>"
		}
	}
	b.WriteString("</urlset>")
	lb.files[path] = b.String()
}

func (lb *loopback) count() (requests int, reads map[string]int) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.requests, maps(lb.reads)
}

func maps(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestUnderWorkerd(t *testing.T) {
	lb := newLoopback(t)
	lb.publish("/sitemap.xml", pages(50, "2026-01-01")...)
	var slow []string
	for i := range 30 {
		slow = append(slow, fmt.Sprintf("/g/%d", i))
	}
	lb.publish("/slow.xml", slow...)
	config := fmt.Sprintf(`{"adminToken": "${SITEPUSH_ADMIN_TOKEN}", "defaults": {"schedule": "* * * * *",
		"indexnow": {"endpoints": ["%[1]s"], "interval": "1ms", "backoff": ["100ms"]}}, "sites": [
		{"id": "demo", "sitemaps": ["%[2]s/sitemap.xml"], "indexnow": {"enabled": true, "key": "%[3]s"},
		 "bing": {"enabled": true, "apiKey": "${BING_KEY}", "dailyQuota": 10, "endpoint": "%[4]s"},
		 "feed": {"enabled": true, "fetchTitles": false, "baselineItems": 5}},
		{"id": "slow", "sitemaps": ["%[2]s/slow.xml"], "indexnow": {"enabled": true, "key": "%[3]s", "method": "get"}}]}`,
		lb.indexnow, lb.site, testKey, lb.bingURL)
	w := startWorkerd(t, map[string]string{ConfigVar: strings.Join(strings.Fields(config), " "),
		"SITEPUSH_ADMIN_TOKEN": testToken, "BING_KEY": bingKey, SubrequestsVar: "20"})

	at := time.Now().UTC().Truncate(time.Minute)
	tick := func() {
		t.Helper()
		at = at.Add(time.Minute)
		before, _ := lb.count()
		if code, body := w.tick(at); code != 200 {
			t.Fatalf("tick at %s: %d %s", at, code, body)
		}
		if after, _ := lb.count(); after-before > 20 {
			t.Fatalf("tick at %s made %d requests with %s=20", at, after-before, SubrequestsVar)
		}
	}
	ticks := 0
	for ; ticks < 8 && len(lb.engine.Accepted()) < 80; ticks++ {
		tick()
	}
	accepted := lb.engine.Accepted()
	seen := map[string]int{}
	for _, u := range accepted {
		seen[u]++
	}
	if len(accepted) != 80 || len(seen) != 80 || ticks < 2 || len(lb.bing.Accepted()) != 10 {
		t.Fatalf("after %d ticks: IndexNow got %d URLs, %d distinct, and Bing %d; want 80 once each over 2 ticks at least, and Bing its quota of 10",
			ticks, len(accepted), len(seen), len(lb.bing.Accepted()))
	}

	tick()
	if n := len(lb.engine.Accepted()); n != 80 {
		t.Errorf("a tick with nothing new sent %d URLs", n-80)
	}

	changed := pages(50, "2026-01-01")
	changed[4], changed[9] = "/p/4 2026-02-01", "/p/9 2026-02-01"
	lb.publish("/sitemap.xml", append(changed, "/p/new 2026-02-02")...)
	tick()
	got := lb.engine.Accepted()[80:]
	slices.Sort(got)
	if want := []string{lb.site + "/p/4", lb.site + "/p/9", lb.site + "/p/new"}; !slices.Equal(got, want) {
		t.Errorf("after 2 changed and 1 new: IndexNow got %v, want %v", got, want)
	}

	for _, route := range []string{"/status?site=demo", "/api/stats/daily"} {
		if code, _ := w.call("GET", route, "wrong"); code != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %d, want 401", route, code)
		}
	}
	code, body := w.call("GET", "/status?site=demo", testToken)
	var status struct {
		LastExecution struct {
			Status   string
			Channels map[string]struct{ Submitted int }
		}
	}
	if json.Unmarshal([]byte(body), &status); code != 200 || status.LastExecution.Status != "ok" ||
		status.LastExecution.Channels["indexnow"].Submitted != 3 || strings.Contains(body, bingKey) {
		t.Errorf("/status?site=demo: %d %s", code, body)
	}
	_, reads := lb.count()
	if code, body := w.call("POST", "/trigger?site=demo&channel=feed", testToken); code != http.StatusAccepted || !strings.Contains(body, `"runId"`) {
		t.Errorf("/trigger: %d %s", code, body)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, now := lb.count(); now["/sitemap.xml"] > reads["/sitemap.xml"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the triggered run did not read the sitemap within 30 s")
		}
	}
	if code, body := w.call("GET", "/feeds/demo.xml", ""); code != 200 || !strings.Contains(body, "<rss") || !strings.Contains(body, lb.site+"/p/") {
		t.Errorf("/feeds/demo.xml: %d %.300s", code, body)
	}
	if code, body := w.call("GET", "/healthz", ""); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Errorf("/healthz: %d %s", code, body)
	}
	if !strings.Contains(w.log.String(), "subrequests of this invocation are spent") {
		t.Errorf("the log does not say why runs stopped before their end")
	}
}

// TestABadConfigurationUnderWorkerd: every request answers the configuration's problem, and a
// tick logs it and sends nothing.
func TestABadConfigurationUnderWorkerd(t *testing.T) {
	lb := newLoopback(t)
	lb.publish("/sitemap.xml", pages(3, "2026-01-01")...)
	w := startWorkerd(t, map[string]string{ConfigVar: fmt.Sprintf(
		`{"sites": [{"id": "a", "sitemaps": ["%s/sitemap.xml"], "bing": {"enabled": true}}]}`, lb.site)})
	const want = `site \"a\": bing.apiKey is required when bing.enabled is true`
	if code, body := w.call("GET", "/healthz", ""); code != 500 || !strings.Contains(body, want) {
		t.Errorf("/healthz: %d %s, want 500 and %s", code, body, want)
	}
	if code, _ := w.tick(time.Now()); code == 200 {
		t.Errorf("a tick with a bad configuration succeeded")
	}
	if n, _ := lb.count(); n != 0 {
		t.Errorf("a bad configuration made %d requests", n)
	}
	logged := false // wrangler writes the Worker's console a moment late
	for deadline := time.Now().Add(10 * time.Second); !logged && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(w.log.String()))
		for sc.Scan() {
			logged = logged || strings.Contains(sc.Text(), "the configuration does not load") && strings.Contains(sc.Text(), "bing.apiKey is required")
		}
	}
	if !logged {
		t.Errorf("the tick did not log the configuration's problem")
	}
}

// TestATriggeredRunAmidRequests: a run going on after /trigger's answer, paced by the engine's
// interval, is not disturbed by the requests the same isolate answers meanwhile.
func TestATriggeredRunAmidRequests(t *testing.T) {
	lb := newLoopback(t)
	var list []string
	for i := range 15 {
		list = append(list, fmt.Sprintf("/g/%d", i))
	}
	lb.publish("/sitemap.xml", list...)
	// The configuration as YAML, in a TOML multi-line string, as docs/cloudflare.md shows it.
	w := startWorkerd(t, map[string]string{"SITEPUSH_ADMIN_TOKEN": testToken, ConfigVar: fmt.Sprintf(`
adminToken: ${SITEPUSH_ADMIN_TOKEN}
sites:
  - id: a
    schedule: "0 0 1 1 *"
    sitemaps: [%s/sitemap.xml]
    indexnow: {enabled: true, key: %s, method: get, interval: 100ms, endpoints: [%s]}
`, lb.site, testKey, lb.indexnow)})
	if code, body := w.call("POST", "/trigger?site=a", testToken); code != http.StatusAccepted {
		t.Fatalf("/trigger: %d %s", code, body)
	}
	answered := 0
	codes := map[int]int{}
	for deadline := time.Now().Add(30 * time.Second); len(lb.engine.Accepted()) < 15 && time.Now().Before(deadline); answered++ {
		for _, path := range []string{"/healthz", "/status?site=a"} {
			code, body := w.call("GET", path, testToken)
			codes[code]++
			if code != 200 && (code != 503 || !strings.Contains(body, "a run is going on")) {
				t.Errorf("%s during a run: %d %s", path, code, body)
			}
		}
	}
	if got := len(lb.engine.Accepted()); got != 15 {
		t.Fatalf("the triggered run sent %d of 15 URLs in 30 s, amid %d rounds of requests", got, answered)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, body := w.call("GET", "/status?site=a", testToken)
		if strings.Contains(body, `"status":"ok"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the triggered run did not finish ok: %s", body)
		}
	}
	t.Logf("%d rounds of requests answered during the run: %v", answered, codes)
}

// TestAnUnchangedSiteUnderWorkerd: under workerd, a site due every 10 minutes. A tick with nothing
// due ends in the JS module, Go not started, and writes nothing; a due tick that finds the site's
// sitemap as the last run settled it reads none of its catalogue's shards — workerd's KV lists them
// with the summaries they were written with — sends nothing, and writes one value, the schedule,
// which holds the run /status shows. In a new isolate, /healthz and a tick with nothing due are
// answered without Go: the next due tick starts it.
func TestAnUnchangedSiteUnderWorkerd(t *testing.T) {
	lb := newLoopback(t)
	lb.publish("/sitemap.xml", pages(60, "2026-01-01")...)
	vars := map[string]string{"SITEPUSH_ADMIN_TOKEN": testToken, ConfigVar: fmt.Sprintf(`{"adminToken": "${SITEPUSH_ADMIN_TOKEN}",
		"defaults": {"schedule": "*/10 * * * *"}, "sites": [{"id": "a", "sitemaps": ["%s/sitemap.xml"],
		"indexnow": {"enabled": true, "key": "%s", "endpoints": ["%s"], "interval": "1ms"}}]}`, lb.site, testKey, lb.indexnow)}
	dir := t.TempDir()
	w := startWorkerdOn(t, vars, dir)
	at := time.Now().UTC().Truncate(10 * time.Minute).Add(10 * time.Minute)
	tick := func(at time.Time) map[string]string {
		t.Helper()
		from := len(w.log.String())
		if code, body := w.tick(at); code != 200 {
			t.Fatalf("tick at %s: %d %s", at, code, body)
		}
		line := w.doneLine(from)
		fields := map[string]string{}
		for _, f := range strings.Fields(line) {
			if k, v, ok := strings.Cut(f, "="); ok {
				fields[k] = v
			}
		}
		if fields["go"] == "" {
			t.Fatalf("the tick at %s logged no go= field: %q\n%s", at, line, w.log.String())
		}
		return fields
	}
	tick(at)
	if n := len(lb.engine.Accepted()); n != 60 {
		t.Fatalf("the first tick sent %d URLs, want 60", n)
	}
	if got := tick(at.Add(5 * time.Minute)); got["go"] != "skipped" || got["kv_writes"] != "0" {
		t.Errorf("a tick with nothing due: go=%s, %s KV writes; want go=skipped and none", got["go"], got["kv_writes"])
	}
	got := tick(at.Add(10 * time.Minute)) // memos are used once KV has had time to settle
	var reads int
	fmt.Sscan(got["kv_reads"], &reads)
	if got["go"] != "warm" || got["kv_writes"] != "1" || got["kv_deletes"] != "0" || got["kv_lists"] != "1" || reads == 0 || reads > 8 {
		t.Errorf("the due tick with nothing changed: %v; want go=warm, one write (the schedule), no delete, one list and a few reads (no shard)", got)
	}
	if n := len(lb.engine.Accepted()); n != 60 {
		t.Errorf("the ticks with nothing changed sent %d URLs", n-60)
	}
	_, body := w.call("GET", "/status?site=a", testToken)
	var status struct{ LastExecution struct{ StartedAt time.Time } }
	// A run starts at its tick's time, and what passed since the tick began.
	if err := json.Unmarshal([]byte(body), &status); err != nil || status.LastExecution.StartedAt.Truncate(time.Minute) != at.Add(10*time.Minute) {
		t.Errorf("/status after the run that found nothing changed: %v %s; want its lastExecution, started at %s", err, body, at.Add(10*time.Minute))
	}

	w.stop()
	w = startWorkerdOn(t, vars, dir)
	if code, body := w.call("GET", "/healthz", ""); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Errorf("/healthz in a new isolate: %d %s", code, body)
	}
	if got := tick(at.Add(15 * time.Minute)); got["go"] != "skipped" {
		t.Errorf("a tick with nothing due in a new isolate: go=%s, want skipped", got["go"])
	}
	if got := tick(at.Add(20 * time.Minute)); got["go"] != "cold" {
		t.Errorf("the first due tick of an isolate that answered /healthz and a tick with nothing due: go=%s, want cold (Go started by it)", got["go"])
	}
}

// TestFromSentToSeenUnderWorkerd: under workerd, within 12 subrequests a tick, Bing's preflight
// holds back a noindex page and a 404 and sends the rest, and a page deleted from the site and
// its sitemap is announced through IndexNow by the tick after the one that found it gone.
func TestFromSentToSeenUnderWorkerd(t *testing.T) {
	lb := newLoopback(t)
	lb.files["/p/3"] = `<!doctype html><meta name="robots" content="noindex"><title>draft</title>`
	lb.publish("/sitemap.xml", pages(12, "2026-01-01")...)
	delete(lb.files, "/p/5")
	config := fmt.Sprintf(`{"defaults": {"schedule": "* * * * *", "indexnow": {"endpoints": ["%[1]s"], "interval": "1ms"}}, "sites": [
		{"id": "demo", "sitemaps": ["%[2]s/sitemap.xml"], "indexnow": {"enabled": true, "key": "%[3]s"},
		 "bing": {"enabled": true, "apiKey": "${BING_KEY}", "dailyQuota": 20, "endpoint": "%[4]s"}}]}`,
		lb.indexnow, lb.site, testKey, lb.bingURL)
	// The quota covers every page: a URL it held back would keep each read from settling, and only
	// a settled read tells which URLs left the sitemaps (docs/runs.md, "Removed pages").
	w := startWorkerd(t, map[string]string{ConfigVar: strings.Join(strings.Fields(config), " "), "BING_KEY": bingKey, SubrequestsVar: "12"})
	// Ticks 5 minutes apart from now: a run uses the memos of the sitemaps once 2 minutes old.
	at := time.Now().UTC().Truncate(time.Minute)
	tick := func() {
		t.Helper()
		at = at.Add(5 * time.Minute)
		before, _ := lb.count()
		if code, body := w.tick(at); code != 200 {
			t.Fatalf("tick at %s: %d %s", at, code, body)
		}
		if after, _ := lb.count(); after-before > 12 {
			t.Fatalf("tick at %s made %d requests with %s=12", at, after-before, SubrequestsVar)
		}
	}
	for ticks := 0; ticks < 6 && len(lb.bing.Accepted()) < 10; ticks++ {
		tick()
	}
	// Bing may have its 10 before the read settles — when /p/3 or /p/5 is the last page checked,
	// which depends on the order they come in: one tick more checks it.
	tick()
	bing := lb.bing.Accepted()
	if len(bing) != 10 || slices.Contains(bing, lb.site+"/p/3") || slices.Contains(bing, lb.site+"/p/5") {
		t.Fatalf("Bing got %d URLs: %v; want the 10 eligible, neither /p/3 (noindex) nor /p/5 (404)", len(bing), bing)
	}
	if !strings.Contains(w.log.String(), "bing.ineligible=") {
		t.Error("the log does not count the URLs held back")
	}
	// Two more ticks check what the budget left unchecked, so that a read settles: only a
	// settled read is remembered, and tells the URLs that leave after it.
	tick()
	tick()
	if n := len(lb.bing.Accepted()); n != 10 {
		t.Fatalf("Bing got %d URLs once every page was checked; want the 10 eligible", n)
	}
	sent := len(lb.engine.Accepted())
	lb.publish("/sitemap.xml", slices.Delete(pages(12, "2026-01-01"), 7, 8)...)
	lb.mu.Lock()
	delete(lb.files, "/p/7")
	delete(lb.files, "/p/5") // publish wrote it again
	lb.mu.Unlock()
	tick()
	tick()
	if got := lb.engine.Accepted()[sent:]; !slices.Equal(got, []string{lb.site + "/p/7"}) {
		t.Errorf("after /p/7 was deleted, IndexNow got %v; want its removal notice", got)
	}
}

// TestWhenTheWorkersTestsRun: SITEPUSH_TEST_WORKERD=0 skips the tests that start the Worker
// under wrangler, even with npm installed; any other value makes a missing npm a failure.
func TestWhenTheWorkersTestsRun(t *testing.T) {
	for _, c := range []struct {
		setting  string
		npm      bool
		run      bool
		failWith bool
	}{
		{"", true, true, false}, {"", false, false, false},
		{"1", true, true, false}, {"1", false, false, true},
		{"0", true, false, false}, {"0", false, false, false},
	} {
		why, fail := whyNotWorkerd(c.setting, c.npm)
		if (why == "") != c.run || fail != c.failWith {
			t.Errorf("SITEPUSH_TEST_WORKERD=%q, npm %v: %q, failure %v; want run %v, failure %v", c.setting, c.npm, why, fail, c.run, c.failWith)
		}
	}
}
