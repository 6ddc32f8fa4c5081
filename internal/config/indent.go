package config

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// indentErrors are yaml.v3's words for a line indented to no level the lines above it open: they
// name what the parser looked for, not the indentation that was wrong.
func indentErrors() []string {
	return []string{
		"did not find expected key",
		"did not find expected '-' indicator",
		"mapping values are not allowed in this context",
		"did not find expected <document start>",
	}
}

// keyLine matches a line that starts a key or a list item: its indentation, its "- " markers and
// its key, either of the last two possibly empty.
var keyLine = regexp.MustCompile(`^( *)((?:- +)*)(?:([^\s#:-][^#]*?):(?:\s|$))?`)

// keyOf returns the indentation, the "- " markers and the key of a line that starts a key or a
// list item, and false for any other line.
func keyOf(line string) (indent int, dashes, key string, ok bool) {
	m := keyLine.FindStringSubmatch(line)
	if m == nil || m[2] == "" && m[3] == "" {
		return 0, "", "", false
	}
	return len(m[1]), m[2], m[3], true
}

// indentHint rewrites the parser's error msg about line n (1-based) of lines when that line is a
// key indented to no level of the keys above it: the message names the indentation, and the
// levels it could have. It returns msg unchanged otherwise.
func indentHint(msg string, n int, lines []string) string {
	if n < 2 || n > len(lines) || strings.Contains(lines[n-1], "\t") || !slices.ContainsFunc(indentErrors(), func(e string) bool {
		return strings.Contains(msg, e)
	}) {
		return msg
	}
	at, dashes, key, ok := keyOf(lines[n-1])
	levels := openLevels(lines[:n-1])
	if !ok || len(levels) == 0 || slices.Contains(levels, at) {
		return msg
	}
	what := "-"
	if key != "" {
		what = dashes + key + ":"
	}
	return fmt.Sprintf("line %d: `%s` is indented %s, which lines it up with no key above it (%s): "+
		"indent it as far as the key it belongs beside, with spaces", n, what, spaces(at), levelList(levels))
}

// openLevels lists the indentations the lines above a line leave open, nearest first: each key
// line less indented than those below it, and for a list item ("- key:") both its key and its "-".
func openLevels(above []string) []int {
	var levels []int
	limit := int(^uint(0) >> 1)
	for i := len(above) - 1; i >= 0 && limit > 0; i-- {
		indent, dashes, key, ok := keyOf(above[i])
		if !ok {
			continue
		}
		if col := indent + len(dashes); dashes != "" && key != "" && col < limit {
			levels, limit = append(levels, col), col
		}
		if indent < limit {
			levels, limit = append(levels, indent), indent
		}
	}
	return levels
}

// spaces writes "1 space", "3 spaces".
func spaces(n int) string {
	if n == 1 {
		return "1 space"
	}
	return strconv.Itoa(n) + " spaces"
}

// levelList writes levels as "the keys above are at 4, 2 or 0 spaces".
func levelList(levels []int) string {
	if len(levels) == 1 {
		return "the key above is at " + spaces(levels[0])
	}
	words := make([]string, len(levels))
	for i, l := range levels {
		words[i] = strconv.Itoa(l)
	}
	return "the keys above are at " + strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1] + " spaces"
}
