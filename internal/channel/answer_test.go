package channel

import (
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in    string
		want  time.Duration
		asked string
	}{
		{"", 0, ""},
		{"120", 2 * time.Minute, "120 s"},
		{"5", 5 * time.Second, "5 s"},
		{"0", 0, "0 s"},
		{"-5", 0, ""},
		{"Thu, 01 Jan 2026 00:01:30 GMT", 90 * time.Second, "until Thu, 01 Jan 2026 00:01:30 GMT"},
		{"Wed, 31 Dec 2025 23:59:00 GMT", 0, "until Wed, 31 Dec 2025 23:59:00 GMT"}, // in the past: now
		{"soon", 0, ""},
		// Longer waits are cut to the limit; a number no duration holds does not wrap to none.
		{"7200", time.Hour, "7200 s"},
		{"10000000000", time.Hour, "10000000000 s"},
		{"99999999999999999999999999999999", time.Hour, "999999999999999999999999… s"},
		{"Fri, 01 Jan 2100 00:00:00 GMT", time.Hour, "until Fri, 01 Jan 2100 00:00:00 GMT"},
	} {
		if got, asked := RetryAfter(tc.in, now, time.Hour); got != tc.want || asked != tc.asked {
			t.Errorf("RetryAfter(%q) = %v, %q; want %v, %q", tc.in, got, asked, tc.want, tc.asked)
		}
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct{ ctype, body, want string }{
		{"text/html; charset=utf-8", "<!doctype html><title>Sign in</title>", "an HTML page, text/html"},
		{"application/json", `{"anything": "private"}`, "JSON, application/json"},
		{"text/plain", "internal secret", "plain text, text/plain"},
		{"", "x", "plain text, no Content-Type"},
		{"text/plain", "  \n", "empty"},
		{"application/octet-stream", "\x00\x01\x02", "binary data, application/octet-stream"},
		{"te/xt;;;", "a", "plain text, an unreadable Content-Type"},
	} {
		if got := Describe(tc.ctype, []byte(tc.body)); got != tc.want {
			t.Errorf("Describe(%q, %q) = %q, want %q", tc.ctype, tc.body, got, tc.want)
		}
	}
}
