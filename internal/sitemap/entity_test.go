package sitemap

import "testing"

func TestAppendUnescaped(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a&amp;b", "a&b"},
		{"&lt;&gt;&quot;&apos;&amp;", `<>"'&`},
		{"&amp;amp;", "&amp;"}, // decoded exactly once
		{"&#65;&#x42;&#X43;", "ABC"},
		{"&#x10FFFF;", "\U0010FFFF"},
		{"&#1114112;", "&#1114112;"}, // beyond Unicode: kept as written
		{"&#0;", "&#0;"},
		{"&#xD800;", "&#xD800;"}, // a surrogate is no character
		{"&#;&#x;&#12a;", "&#;&#x;&#12a;"},
		{"?a=1&b=2", "?a=1&b=2"}, // a stray '&' is kept
		{"&nbsp;&copy;", "&nbsp;&copy;"},
		{"&", "&"},
		{"x&", "x&"},
		{"&amp", "&amp"},
		{"&verylongnamethatisnotanentity;", "&verylongnamethatisnotanentity;"},
	}
	for _, tc := range tests {
		if got := string(appendUnescaped(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("appendUnescaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTrimSpace(t *testing.T) {
	for in, want := range map[string]string{"": "", " \t\r\n": "", "\n x y \t": "x y", "x": "x", "\u00a0x": "\u00a0x"} {
		if got := string(trimSpace([]byte(in))); got != want {
			t.Errorf("trimSpace(%q) = %q, want %q", in, got, want)
		}
	}
}
