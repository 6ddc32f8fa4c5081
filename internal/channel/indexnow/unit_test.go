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
		given bool
	}{
		{"", 0, false},
		{"120", 2 * time.Minute, true},
		{"0", 0, true},
		{"-5", 0, false},
		{"Thu, 01 Jan 2026 00:01:30 GMT", 90 * time.Second, true},
		{"Wed, 31 Dec 2025 23:59:00 GMT", 0, true}, // in the past: now
		{"soon", 0, false},
	} {
		if got, given := retryAfter(tc.in, now); got != tc.want || given != tc.given {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tc.in, got, given, tc.want, tc.given)
		}
	}
}
