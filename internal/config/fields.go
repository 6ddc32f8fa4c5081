package config

import (
	"reflect"
	"strings"
)

// field is one key a struct accepts in YAML.
type field struct {
	name string
	typ  reflect.Type
}

// yamlFields lists the keys of struct type t in declaration order, as yaml.v3 sees them: the yaml
// tag's name (else the lowercased field name), fields of `,inline` structs in place, "-" skipped.
func yamlFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case opts == "inline":
			out = append(out, yamlFields(f.Type)...)
			continue
		case name == "":
			name = strings.ToLower(f.Name)
		}
		out = append(out, field{name: name, typ: f.Type})
	}
	return out
}

func findField(fields []field, name string) (field, bool) {
	for _, f := range fields {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

// suggest returns the known name a mistyped key most likely meant: the closest within an edit
// distance of 2, ignoring case (so a name that differs only by case, at distance 0, always wins), else "".
func suggest(key string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := EditDistance(strings.ToLower(key), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, counted in bytes (keys, flags and
// commands are ASCII): what the configuration and the command line suggest the nearest name by.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
