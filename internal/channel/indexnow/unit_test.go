package indexnow

import (
	"testing"
	"time"
)

func TestEncodeURIComponent(t *testing.T) {
	// Expected values are what JavaScript's encodeURIComponent returns.
	for in, want := range map[string]string{
		"https://example.com/page?id=1": "https%3A%2F%2Fexample.com%2Fpage%3Fid%3D1",
		"a b+c&d=e#f":                   "a%20b%2Bc%26d%3De%23f",
		"-_.!~*'()":                     "-_.!~*'()",
		"AZaz09":                        "AZaz09",
		"/path/интер?q=é":               "%2Fpath%2F%D0%B8%D0%BD%D1%82%D0%B5%D1%80%3Fq%3D%C3%A9",
		"%20,;:@$[]":                    "%2520%2C%3B%3A%40%24%5B%5D",
		"a1b2c3d4e5f6a7b8c9d0":          "a1b2c3d4e5f6a7b8c9d0",
	} {
		if got := encodeURIComponent(in); got != want {
			t.Errorf("encodeURIComponent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in    string
		want  time.Duration
		asked string
	}{
		{"", 0, ""},
		{"120", 2 * time.Minute, "120 s"},
		{"0", 0, "0 s"},
		{"-5", 0, ""},
		{"Thu, 01 Jan 2026 00:01:30 GMT", 90 * time.Second, "until Thu, 01 Jan 2026 00:01:30 GMT"},
		{"Wed, 31 Dec 2025 23:59:00 GMT", 0, "until Wed, 31 Dec 2025 23:59:00 GMT"}, // in the past: now
		{"soon", 0, ""},
		// Longer waits are cut to maxPause; a number no duration holds does not wrap to none.
		{"7200", time.Hour, "7200 s"},
		{"10000000000", time.Hour, "10000000000 s"},
		{"99999999999999999999999999999999", time.Hour, "999999999999999999999999… s"},
		{"Fri, 01 Jan 2100 00:00:00 GMT", time.Hour, "until Fri, 01 Jan 2100 00:00:00 GMT"},
	} {
		if got, asked := retryAfter(tc.in, now); got != tc.want || asked != tc.asked {
			t.Errorf("retryAfter(%q) = %v, %q; want %v, %q", tc.in, got, asked, tc.want, tc.asked)
		}
	}
}
