package indexnow

import (
	"testing"
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
