package channel

import "testing"

// TestPrintable: an engine's answer is shown on one line, with no character a terminal would act
// on rather than show.
func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain words", "Quota exceeded", "Quota exceeded"},
		{"newlines and tabs become one space", "line one\r\n\tline two\n", "line one line two"},
		{"ESC sequences lose their ESC", "\x1b[2J\x1b[31mboom\x1b[0m", "[2J[31mboom[0m"},
		{"a right-to-left override goes", "boom \u202e x", "boom x"},
		{"a zero-width space and DEL go", "a\u200bb\x7f", "ab"},
		{"bytes that are not UTF-8 go", "caf\xe9 ok", "caf ok"},
		{"a no-break space is a space", "a\u00a0b", "a b"},
		{"other scripts stay", "été 東京 ✓", "été 東京 ✓"},
		{"a NUL goes", "a\x00b", "ab"},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("%s: Printable(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}
