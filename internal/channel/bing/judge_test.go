package bing

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestJudge(t *testing.T) {
	const quotaRefusal = `{"ErrorCode": 2, "Message": "ERROR!!! You have exceeded your daily url submission quota : 100"}`
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		want                    verdict
	}{
		{"success", "application/json; charset=utf-8", `{"d":null}`, 200, accepted},
		{"the documented quota refusal", "application/json", quotaRefusal, 400, quotaSpent},
		{"a 5xx that mentions the quota", "application/json", `{"ErrorCode": 1, "Message": "ERROR!!! Quota service temporarily unavailable"}`, 503, retryLater},
		{"the refusal's words at another status", "application/json", quotaRefusal, 500, retryLater},
		{"another error that mentions the quota", "application/json", `{"ErrorCode": 6, "Message": "ERROR!!! InvalidParameter quota"}`, 400, refused},
		{"a 200 HTML page", "text/html", "<html><body>Sign in</body></html>", 200, retryLater},
		{"a 200 with nothing", "", "", 200, retryLater},
		{"a 200 with other JSON", "application/json", `{"ok": true}`, 200, retryLater},
		{"a 401 page", "text/html", "<html>Unauthorized</html>", 401, badKey},
		{"an invalid key", "application/json", `{"ErrorCode": 3, "Message": "ERROR!!! InvalidApiKey"}`, 400, badKey},
		{"a 429", "text/plain", "slow down", 429, throttled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Type", tc.contentType)
			rec.WriteHeader(tc.status)
			rec.WriteString(tc.body)
			c := &Channel{siteURL: "https://www.example.com"}
			if a := c.judge(rec.Result()); a.verdict != tc.want {
				t.Errorf("HTTP %d %s: verdict %d (%s), want %d", tc.status, tc.body, a.verdict, a.msg, tc.want)
			}
		})
	}
}

// TestA429WithADate checks that Bing's Retry-After given as an HTTP date is read, not taken
// for none.
func TestA429WithADate(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("Retry-After", time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))
	rec.WriteHeader(http.StatusTooManyRequests)
	c := &Channel{siteURL: "https://www.example.com"}
	if a := c.judge(rec.Result()); a.verdict != throttled || !strings.HasPrefix(a.asked, "until ") || a.wait < 80*time.Second || a.wait > 90*time.Second {
		t.Errorf("a 429 with Retry-After as a date: verdict %d, wait %v, asked %q", a.verdict, a.wait, a.asked)
	}
}
