package cli

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnewline\n\x00\x1f", "é中\U0001F600", "bad \xff utf8", "<&>"} {
		got := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, got, err)
		}
		want := s
		if !utf8.ValidString(s) {
			want = "bad \uFFFD utf8"
		}
		if back != want || string(appendJSONString(nil, []byte(s))) != string(got) {
			t.Errorf("%q → %s → %q", s, got, back)
		}
	}
}
