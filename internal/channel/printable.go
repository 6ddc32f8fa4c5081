package channel

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is an engine's words as every face shows them — the summary, `run --verbose`, a CI
// annotation, a run's record, the dashboard: on one line, and only what a terminal or a log shows
// as text. An engine is a server on the network, and its answer could clear a terminal (ESC
// sequences), turn the rest of a line around (U+202E) or break an annotation in two (a newline).
// White space of any kind, newlines too, becomes one space between words; control and format
// characters, and bytes that are not UTF-8, go.
func Printable(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case r == utf8.RuneError || !unicode.IsPrint(r):
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
