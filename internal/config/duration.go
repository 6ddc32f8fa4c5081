package config

import (
	"encoding/json"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// durationSyntax is the hint every duration error ends with, so that users learn the one syntax accepted.
const durationSyntax = "use Go syntax like 30s, 100ms, 1h30m or 720h (units ns, us, ms, s, m, h)"

// Duration is a time.Duration written in Go syntax ("100ms", "720h") in YAML and JSON, so that the
// file, the API and the execution records all read the same way a human writes them.
type Duration time.Duration

// D returns the duration as a time.Duration, for passing to the standard library.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats the duration as Go does ("1m40s"), which is also how it is written back to YAML and JSON.
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML accepts only Go duration syntax: a bare number such as 30 is ambiguous (seconds?
// nanoseconds?) and is rejected with the line, except 0 which means the same in every unit.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a duration must be a single value, got %s; %s", n.Line, kindName(n), durationSyntax)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration; %s", n.Line, n.Value, durationSyntax)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the Go syntax, so that a marshalled configuration loads again.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalJSON writes the Go syntax as a JSON string ("1m40s"), the form the HTTP API shows.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON accepts a Go duration string, or the number 0, which API clients often send for "none".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var f float64
		if json.Unmarshal(b, &f) == nil && f == 0 {
			*d = 0
			return nil
		}
		return fmt.Errorf("a duration must be a string like \"30s\", got %s; %s", b, durationSyntax)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration; %s", s, durationSyntax)
	}
	*d = Duration(v)
	return nil
}
