package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// wrong makes a wrong try of client at now and returns the penalty it starts.
func (g *guesses) wrong(client netip.Prefix, now time.Time) time.Duration {
	_, _, penalty := g.attempt(client, now, func() bool { return false })
	return penalty
}

func TestGuessesPenalties(t *testing.T) {
	g := newGuesses()
	a, b := netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("192.0.2.8/32")
	now := t0
	for i := range freeGuesses {
		if p := g.wrong(a, now); p != 0 || g.refused(a, now) != 0 {
			t.Fatalf("wrong token %d of the free ones: penalty %s", i+1, p)
		}
	}
	// Each further wrong token doubles the penalty, up to maxPenalty.
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second,
		32 * time.Second, time.Minute, time.Minute} {
		if p := g.wrong(a, now); p != want {
			t.Fatalf("penalty %s, want %s", p, want)
		}
		if r := g.refused(a, now.Add(want-time.Millisecond)); r != time.Millisecond {
			t.Fatalf("refused for %s just before the end of a %s penalty", r, want)
		}
		now = now.Add(want)
		if r := g.refused(a, now); r != 0 {
			t.Fatalf("still refused for %s once the %s penalty is over", r, want)
		}
	}
	if g.refused(b, now) != 0 || g.wrong(b, now) != 0 {
		t.Error("another address pays for the first one's wrong tokens")
	}
	// An hour without a wrong token: the address starts afresh.
	now = now.Add(forgetGuesses)
	if p := g.wrong(a, now); p != 0 {
		t.Errorf("after %s of quiet, a wrong token costs %s", forgetGuesses, p)
	}
}

// TestTriesAtOnceAreJudgedOneByOne sends tries at once once an address's free guesses are spent:
// the first is judged, and the others are refused by the penalty it starts, unjudged.
func TestTriesAtOnceAreJudgedOneByOne(t *testing.T) {
	g := newGuesses()
	a := netip.MustParsePrefix("192.0.2.7/32")
	for range freeGuesses {
		g.wrong(a, t0)
	}
	var judged, refused atomic.Int32
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			_, wait, _ := g.attempt(a, t0, func() bool { judged.Add(1); return false })
			if wait > 0 {
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if judged.Load() != 1 || refused.Load() != 199 {
		t.Errorf("200 tries at once: %d judged, %d refused; want 1 and 199", judged.Load(), refused.Load())
	}
}

func TestGuessesKeyIPv6ByPrefix(t *testing.T) {
	req := func(addr string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = addr
		return r
	}
	if a, b := clientOf(req("[2001:db8:1:2::1]:5000")), clientOf(req("[2001:db8:1:2:ffff::9]:6000")); a != b {
		t.Errorf("two addresses of one /64 are two clients: %s %s", a, b)
	}
	if a, b := clientOf(req("[2001:db8:1:2::1]:5000")), clientOf(req("[2001:db8:1:3::1]:5000")); a == b {
		t.Errorf("two /64s are one client: %s", a)
	}
	if a := clientOf(req("[::ffff:192.0.2.1]:80")); a != netip.MustParsePrefix("192.0.2.1/32") {
		t.Errorf("an IPv4-mapped address: %s", a)
	}
}

func TestGuessesTableIsBounded(t *testing.T) {
	g := newGuesses()
	base := netip.MustParseAddr("10.0.0.0")
	addr := base
	for i := range maxGuessers + 100 {
		p, _ := addr.Prefix(32)
		g.wrong(p, t0.Add(time.Duration(i)*time.Millisecond))
		addr = addr.Next()
	}
	if n := len(g.clients); n > maxGuessers {
		t.Errorf("%d addresses remembered, want at most %d", n, maxGuessers)
	}
	first, _ := base.Prefix(32)
	if _, kept := g.clients[first]; kept {
		t.Error("the quietest address was kept when the table was full")
	}
}

// authServer is a Server on a clock the test sets, answering requests made in the process.
type authServer struct {
	s     *Server
	h     http.Handler
	mu    sync.Mutex
	clock time.Time
}

func newAuthServer(t *testing.T, metricsToken string) *authServer {
	w := newWorld(t)
	a := &authServer{clock: t0}
	a.s = New(Options{Sites: w.api.sites, Runs: w.runs, State: w.store, Metrics: w.api.metrics, AdminToken: token,
		MetricsToken: metricsToken, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	a.s.now = func() time.Time {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.clock
	}
	a.h = a.s.Handler()
	return a
}

func (a *authServer) advance(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clock = a.clock.Add(d)
}

// do answers a request from addr; header holds extra headers as "Name: value".
func (a *authServer) do(method, path, from, body string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr = from + ":40000"
	if body != "" {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, h := range header {
		k, v, _ := strings.Cut(h, ": ")
		r.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	a.h.ServeHTTP(rec, r)
	return rec
}

// t0 is the time the tests of authentication start at.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func form(tok string) string { return url.Values{"token": {tok}}.Encode() }

func TestLoginIsLimitedPerAddress(t *testing.T) {
	a := newAuthServer(t, "")
	var refused, wrong int
	for range 50 {
		switch rec := a.do("POST", "/login", "127.0.0.7", form("wrong-token")); rec.Code {
		case http.StatusTooManyRequests:
			refused++
			if rec.Header().Get("Retry-After") == "" || rec.Header().Get("Set-Cookie") != "" {
				t.Fatalf("a refusal without Retry-After, or with a session: %v", rec.Header())
			}
		case http.StatusUnauthorized:
			wrong++
		default:
			t.Fatalf("a wrong token: %d", rec.Code)
		}
	}
	if wrong != freeGuesses+1 || refused != 50-wrong {
		t.Errorf("50 wrong tokens at once: %d judged wrong and %d refused; want %d judged, the rest refused", wrong, refused, freeGuesses+1)
	}
	// The right token is refused too while the address is, from the form and the API alike.
	if rec := a.do("POST", "/login", "127.0.0.7", form(token)); rec.Code != http.StatusTooManyRequests {
		t.Errorf("the right token from a refused address: %d", rec.Code)
	}
	if rec := a.do("GET", "/api/sites", "127.0.0.7", "", "Authorization: Bearer "+token); rec.Code != http.StatusTooManyRequests ||
		!strings.Contains(rec.Body.String(), "too many wrong tokens from 127.0.0.7") {
		t.Errorf("the API from a refused address: %d %s", rec.Code, rec.Body)
	}
	// Another address is not.
	if rec := a.do("POST", "/login", "127.0.0.8", form(token)); rec.Code != http.StatusSeeOther || rec.Header().Get("Set-Cookie") == "" {
		t.Errorf("the right token from another address: %d", rec.Code)
	}
	// Once the penalty is over, the right token works again.
	a.advance(firstPenalty)
	if rec := a.do("POST", "/login", "127.0.0.7", form(token)); rec.Code != http.StatusSeeOther {
		t.Errorf("the right token once the penalty is over: %d %s", rec.Code, rec.Body)
	}
}

func TestWrongBearerTokensCount(t *testing.T) {
	a := newAuthServer(t, "")
	for range freeGuesses + 1 {
		a.do("GET", "/status", "127.0.0.9", "", "Authorization: Bearer nope")
	}
	rec := a.do("GET", "/api/sites", "127.0.0.9", "", "Authorization: Bearer "+token)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("after %d wrong bearer tokens: %d, Retry-After %q", freeGuesses+1, rec.Code, rec.Header().Get("Retry-After"))
	}
	// No token at all is no guess, nor are a proxy's Basic credentials passed on: a client that
	// sends none never gets refused for it.
	b := newAuthServer(t, "")
	for range 20 {
		b.do("GET", "/api/sites", "127.0.0.9", "")
		b.do("GET", "/", "127.0.0.9", "", "Authorization: Basic dXNlcjpwYXNz")
	}
	if rec := b.do("POST", "/login", "127.0.0.9", form(token)); rec.Code != http.StatusSeeOther {
		t.Errorf("after 20 requests without a token and 20 with Basic credentials, the login: %d", rec.Code)
	}
}

func TestFormsFromOtherSitesAreRefused(t *testing.T) {
	a := newAuthServer(t, "")
	for _, tc := range []struct {
		path   string
		header []string
		code   int
	}{
		{"/login", []string{"Origin: http://evil.example"}, http.StatusForbidden},
		{"/login", []string{"Sec-Fetch-Site: cross-site", "Origin: http://evil.example"}, http.StatusForbidden},
		{"/logout", []string{"Origin: http://evil.example"}, http.StatusForbidden},
		{"/login", []string{"Origin: http://example.com"}, http.StatusSeeOther}, // httptest's Host
		{"/login", []string{"Sec-Fetch-Site: same-origin"}, http.StatusSeeOther},
		{"/login", nil, http.StatusSeeOther}, // not a browser: no Origin, no Sec-Fetch-Site
		{"/logout", []string{"Origin: http://example.com"}, http.StatusSeeOther},
	} {
		rec := a.do("POST", tc.path, "127.0.0.5", form(token), tc.header...)
		if rec.Code != tc.code || (tc.code == http.StatusForbidden) != (rec.Header().Get("Set-Cookie") == "") {
			t.Errorf("POST %s %v: %d, Set-Cookie %q; want %d", tc.path, tc.header, rec.Code, rec.Header().Get("Set-Cookie"), tc.code)
		}
	}
}

func TestMetricsToken(t *testing.T) {
	open := newAuthServer(t, "")
	if rec := open.do("GET", "/metrics", "127.0.0.3", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), "sitepush_") {
		t.Errorf("/metrics without metricsToken: %d", rec.Code)
	}
	closed := newAuthServer(t, "metrics-token-1234")
	for _, tc := range []struct {
		auth string
		code int
	}{
		{"", http.StatusUnauthorized},
		{"Authorization: Bearer wrong", http.StatusUnauthorized},
		{"Authorization: Bearer metrics-token-1234", http.StatusOK},
		{"Authorization: Bearer " + token, http.StatusOK},
	} {
		var hdr []string
		if tc.auth != "" {
			hdr = append(hdr, tc.auth)
		}
		if rec := closed.do("GET", "/metrics", "127.0.0.4", "", hdr...); rec.Code != tc.code {
			t.Errorf("/metrics with metricsToken, %q: %d, want %d %s", tc.auth, rec.Code, tc.code, rec.Body)
		}
	}
}
