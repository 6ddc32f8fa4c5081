// Package human writes numbers for people, the one way every face of sitepush writes them: in the
// summaries, the dashboard, the notes of a run's record.
package human

import (
	"strconv"
	"unicode/utf8"
)

// Int writes n with thousands separators: 1,234,567.
func Int(n int) string {
	s := strconv.Itoa(n)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Count writes n things: "1 URL", "3,951 URLs" (the plural with an s).
func Count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return Int(n) + " " + thing + "s"
}

// Clip cuts s to at most n bytes, on a character's edge, marking the cut with "…": an engine's
// answer or a URL kept or shown bounded.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
