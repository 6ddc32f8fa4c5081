package config

import "testing"

// TestIdentifiers pins the hand-written checks of schemes, variable names and site ids to the
// patterns they stand for: ^[A-Za-z][A-Za-z0-9+.-]*: , ^[A-Za-z_][A-Za-z0-9_]*$ and
// ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$.
func TestIdentifiers(t *testing.T) {
	for in, want := range map[string]string{"https://a": "https", "svn+ssh://x": "svn+ssh", "sqlite:x.db": "sqlite",
		"a1.b-c:": "a1.b-c", "1http://x": "", ":x": "", "./s.xml": "", "s.xml": "", "C:": "C", "": "", "héllo:": ""} {
		if got := schemeOf(in); got != want {
			t.Errorf("schemeOf(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"HOME": true, "_x1": true, "a": true, "1a": false, "": false, "a-b": false, "é": false} {
		if got := isVarName(in); got != want {
			t.Errorf("isVarName(%q) = %v", in, got)
		}
	}
	long := "a123456789012345678901234567890123456789012345678901234567890123"
	for in, want := range map[string]bool{"blog": true, "a.b_c-d": true, "9x": true, long: true, long + "4": false,
		"": false, ".x": false, "-x": false, "a/b": false, "a b": false, "é": false} {
		if got := validID(in); got != want {
			t.Errorf("validID(%q) = %v", in, got)
		}
	}
}
