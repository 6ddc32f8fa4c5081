// Package human writes numbers for people, the one way every face of sitepush writes them: in the
// summaries, the dashboard, the notes of a run's record.
package human

import "strconv"

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
