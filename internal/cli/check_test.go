package cli

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/store"
)

func TestCheck(t *testing.T) {
	b := &enginetest.Bing{Keys: map[string]int{"bing-key-123": 80}}
	bsrv := httptest.NewServer(b)
	defer bsrv.Close()
	w := newTestWorld(t, "    bing: {enabled: true, apiKey: \"${BING_KEY}\", dailyQuota: 100, endpoint: "+bsrv.URL+"/webmaster/api.svc/json}\n")
	w.publish(12)
	t.Setenv("BING_KEY", "bing-key-123")
	code, out, errOut := run(t, "check", "--config", w.config)
	for _, want := range []string{"✓ configuration " + w.config + ": valid, 1 site in the file\n", "✓ sitemap " + w.site.URL + "/sitemap.xml: 12 URLs from 1 sitemap\n",
		"✓ IndexNow key file " + w.site.URL + "/" + testKey + ".txt serves the key",
		"✓ Bing API key accepted: 80 URLs left today (Bing's grant of 80; 0 used today; Bing reports 80 today, 2,400 this month)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if code != exitOK || errOut != "" {
		t.Errorf("exit %d, %q", code, errOut)
	}

	w.files["/"+testKey+".txt"] = "something else"
	delete(w.files, "/sitemap.xml")
	t.Setenv("BING_KEY", "wrong-bing-key")
	code, out, errOut = run(t, "check", "--config", w.config)
	for _, want := range []string{"✗ sitemap " + w.site.URL + "/sitemap.xml: HTTP 404 Not Found",
		"✗ IndexNow key file " + w.site.URL + "/" + testKey + ".txt serves 14 bytes that are not the key — publish a file at",
		"whose content is exactly the key (a1b2…)",
		"✗ Bing: Bing answered HTTP 401, ErrorCode 3: InvalidApiKey: the API key was rejected: check bing.apiKey"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if code != exitFailed || !strings.Contains(errOut, "3 checks failed") || strings.Contains(out, "wrong-bing-key") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// TestADeadChildIsBlamedOnItsIndex checks that a sitemap an index lists which cannot be read is
// told with the index that lists it, the thing to fix, not the sitemaps: setting, which names the
// index only.
func TestADeadChildIsBlamedOnItsIndex(t *testing.T) {
	w := newTestWorld(t, "")
	index, gone := w.site.URL+"/sitemap.xml", w.site.URL+"/gone.xml"
	w.files["/pages.xml"] = "<urlset><url><loc>" + w.site.URL + "/p/1</loc></url></urlset>"
	w.files["/sitemap.xml"] = "<sitemapindex><sitemap><loc>" + w.site.URL + "/pages.xml</loc></sitemap><sitemap><loc>" + gone + "</loc></sitemap></sitemapindex>"
	code, out, _ := run(t, "check", "--config", w.config)
	want := "✗ sitemap " + gone + ": HTTP 404 Not Found (text/plain; charset=utf-8, 19 bytes) — the index " + index + " lists it: fix that entry of the index, or the server"
	if code != exitFailed || !strings.Contains(out, want) || strings.Contains(out, "sitemaps: entry") {
		t.Errorf("check: exit %d; want %q in\n%s", code, want, out)
	}
	// check counts the sitemaps as a run does: the index and the one read, the one failed apart.
	if counted := "✓ sitemap " + index + ": 1 URL from 2 sitemaps (1 failed)\n"; !strings.Contains(out, counted) {
		t.Errorf("check: want %q in\n%s", counted, out)
	}
	// A run tells it in check's words, the fix included.
	code, out, _ = run(t, "run", "--config", w.config)
	want = "error: " + strings.TrimPrefix(want, "✗ ")
	if code != exitFailed || !strings.Contains(out, want) || !strings.Contains(out, ": 1 URL from 2 sitemaps (1 failed) in ") {
		t.Errorf("run: exit %d; want %q in\n%s", code, want, out)
	}
}

// TestCheckReachesEachIndexNowEndpoint: check makes one request to each IndexNow endpoint, which
// submits nothing, so that an endpoint a run could not reach fails the check, not the run.
func TestCheckReachesEachIndexNowEndpoint(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(3)
	// Two sites on the same endpoint: it is asked once.
	writeFile(t, w.config, readFile(t, w.config)+"  - id: other\n    sitemaps: ["+w.site.URL+"/sitemap.xml]\n    indexnow: {enabled: true, key: "+testKey+"}\n")
	code, out, _ := run(t, "check", "--config", w.config)
	live := w.engine.URL + "/indexnow"
	subs := w.eng.Submissions()
	if code != exitOK || strings.Count(out, "✓ IndexNow endpoint "+live+" answers (HTTP 400 to a request without URLs)") != 2 ||
		len(subs) != 1 || subs[0].Method != http.MethodGet || len(w.eng.Accepted()) != 0 {
		t.Fatalf("a live endpoint: exit %d, requests %+v; want one GET, nothing submitted\n%s", code, subs, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/indexnow"
	ln.Close()
	writeFile(t, w.config, strings.Replace(readFile(t, w.config), live, closed, 1))
	code, out, _ = run(t, "check", "--config", w.config)
	want := "✗ IndexNow endpoint " + closed + ": no answer ("
	if code != exitFailed || !strings.Contains(out, want) || !strings.Contains(out, "a run could not submit there: check indexnow.endpoints") {
		t.Errorf("a closed endpoint: exit %d; want %q in\n%s", code, want, out)
	}
}

// TestCheckBingQuotaUnknown checks that a Bing that takes the key but does not tell the quota
// ({"d":null}) passes: runs count on dailyQuota then, named as the site's only when it is set.
func TestCheckBingQuotaUnknown(t *testing.T) {
	bsrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write([]byte(`{"d":null}`))
	}))
	defer bsrv.Close()
	for _, tc := range []struct{ quota, want string }{
		{", dailyQuota: 100", "✓ Bing answered, but does not tell the quota left today: runs count on 100 URLs left today (your bing.dailyQuota of 100; 0 used today)"},
		{"", "✓ Bing answered, but does not tell the quota left today: runs count on 100 URLs left today (sitepush's default limit of 100 a day, which bing.dailyQuota changes; 0 used today)"},
	} {
		w := newTestWorld(t, "    bing: {enabled: true, apiKey: bing-key-123"+tc.quota+", endpoint: "+bsrv.URL+"/webmaster/api.svc/json}\n")
		w.publish(3)
		code, out, _ := run(t, "check", "--config", w.config)
		if code != exitOK || !strings.Contains(out, tc.want) {
			t.Errorf("exit %d; want %q in\n%s", code, tc.want, out)
		}
	}
}

// TestCheckGoogleNotAKey: google.credentials naming a JSON file that is not a service account's
// key fails the check, naming the file and never what is inside it (it may be any file of the
// server's).
func TestCheckGoogleNotAKey(t *testing.T) {
	g := enginetest.NewGoogle(t)
	probe := filepath.Join(t.TempDir(), "not-a-key.json")
	writeFile(t, probe, `{"type": "PROBE-CONTENT-77", "x": 1}`)
	w := newTestWorld(t, "    google: {enabled: true, credentials: "+probe+", property: \"sc-domain:example.com\", endpoint: "+g.URL+"}\n")
	w.publish(1)
	code, out, errOut := run(t, "check", "--config", w.config)
	want := "✗ Google: the Google credentials " + probe + " is not a service account's key"
	if code != exitFailed || !strings.Contains(out, want) || strings.Contains(out+errOut, "PROBE-CONTENT") {
		t.Errorf("exit %d; want %q, and nothing read from the file, in\n%s%s", code, want, out, errOut)
	}
}

func TestCheckKeyLocationNotAtRoot(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(1)
	w.files["/keys/"+testKey+".txt"] = testKey + "\n"
	cfg := strings.Replace(readFile(t, w.config), "indexnow: {enabled: true, key: "+testKey+"}",
		"indexnow: {enabled: true, key: "+testKey+", keyLocation: "+w.site.URL+"/keys/"+testKey+".txt}", 1)
	writeFile(t, w.config, cfg)
	code, out, _ := run(t, "check", "--config", w.config)
	if code != exitOK || !strings.Contains(out, "! IndexNow keyLocation is not at the site root: engines accept it only for URLs under "+w.site.URL+"/keys/") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestCheckAPostgreSQLThatRefuses: a PostgreSQL state that does not open is tried once, not once
// to write and again to read: a server out of reach makes each try wait its whole timeout.
func TestCheckAPostgreSQLThatRefuses(t *testing.T) {
	srv := newRefusingPostgres(t)
	dsn := "postgres://u:secret@" + srv.addr() + "/db?sslmode=disable"
	if st, err := store.OpenReadOnly(context.Background(), dsn); err == nil {
		st.Close()
		t.Fatal("a server that refuses every connection opened")
	}
	once := srv.connections(t)
	w := newTestWorld(t, "")
	w.publish(3)
	cfg := w.writeConfig(t, "pg.yaml", strings.Replace(readFile(t, w.config), "state: sqlite:state.db", "state: "+dsn, 1))
	code, out, _ := run(t, "check", "--config", cfg)
	if code != exitFailed || strings.Count(out, "✗ state postgres://u@"+srv.addr()+"/db") != 1 || strings.Contains(out, "secret") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	if got := srv.connections(t); got != once {
		t.Errorf("check connected %d times, one open %d: the state was tried more than once", got, once)
	}
}

// refusingPostgres answers every connection as a PostgreSQL server without the database does,
// telling each connection's address.
type refusingPostgres struct {
	ln       net.Listener
	accepted chan string
}

func newRefusingPostgres(t *testing.T) *refusingPostgres {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &refusingPostgres{ln: ln, accepted: make(chan string, 1000)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted <- c.RemoteAddr().String()
			refuse(c)
		}
	}()
	return s
}

// refuse answers the startup message with a fatal error.
func refuse(c net.Conn) {
	defer c.Close()
	size := make([]byte, 4)
	if _, err := io.ReadFull(c, size); err != nil {
		return
	}
	if _, err := io.ReadFull(c, make([]byte, binary.BigEndian.Uint32(size)-4)); err != nil {
		return
	}
	fields := "SFATAL\x00C3D000\x00Mdatabase \"db\" does not exist\x00\x00"
	c.Write(append(binary.BigEndian.AppendUint32([]byte("E"), uint32(4+len(fields))), fields...))
}

func (s *refusingPostgres) addr() string { return s.ln.Addr().String() }

// connections counts the connections accepted since the last count: it connects itself, and
// counts those accepted before its own, which come first.
func (s *refusingPostgres) connections(t *testing.T) int {
	c, err := net.Dial("tcp", s.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := 0
	for a := range s.accepted {
		if a == c.LocalAddr().String() {
			return n
		}
		n++
	}
	return n
}

// TestRunAndCheckTellAnUnreadableSitemapAlike: a sitemap that cannot be read is told by a run in
// the words check uses, with the same fix.
func TestRunAndCheckTellAnUnreadableSitemapAlike(t *testing.T) {
	w := newTestWorld(t, "")
	_, out, _ := run(t, "check", "--config", w.config)
	told := "sitemap " + w.site.URL + "/sitemap.xml: HTTP 404 Not Found (text/plain; charset=utf-8, 19 bytes) — fix the sitemaps: entry, or the server"
	if !strings.Contains(out, "✗ "+told+"\n") {
		t.Errorf("check: want %q in\n%s", told, out)
	}
	code, out, errOut := run(t, "run", "--config", w.config)
	if code != exitFailed || !strings.Contains(out, "error: "+told+"\n") {
		t.Errorf("run: exit %d; want %q in\n%s%s", code, told, out, errOut)
	}
}
