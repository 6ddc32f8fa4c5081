package config

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// place is where a value sits in the file, for messages that name the site and the field the way
// docs/configuration.md does: `site "example.com": indexnow.batchSize …`.
type place struct {
	// label is `site "ID"`, `site #N` for a site without an id, "defaults", or "" at the top level.
	label string
	// path is the field path inside the label's scope, like "indexnow.endpoints[0]".
	path string
}

// siteLabel names the i-th site (0-based) of the file by its id, or by its position when it has none.
func siteLabel(id string, i int) string {
	if id == "" {
		return "site #" + strconv.Itoa(i+1)
	}
	return fmt.Sprintf("site %q", id)
}

func (p place) field(name string) place {
	if p.path != "" {
		name = p.path + "." + name
	}
	return place{label: p.label, path: name}
}

func (p place) index(i int) place {
	return place{label: p.label, path: p.path + "[" + strconv.Itoa(i) + "]"}
}

// prefix is what starts every message about this place.
func (p place) prefix() string {
	if p.label == "" {
		return ""
	}
	return p.label + ": "
}

// subject names the value at this place as the subject of a sentence.
func (p place) subject() string {
	switch {
	case p.path != "":
		return p.prefix() + p.path
	case p.label != "":
		return p.label
	}
	return "the configuration"
}

// in says which mapping a key is in, for messages about keys: ` in indexnow`, or nothing at a scope's root.
func (p place) in() string {
	if p.path == "" {
		return ""
	}
	return " in " + p.path
}

// atLine prefixes a message with the line of the node it is about. The message names its place,
// as every message of the checker does (`site "a": indexnow.batchSize …`).
func atLine(n *yaml.Node, format string, args ...any) error {
	return &nodeError{node: n, err: fmt.Errorf(format, args...), placed: true}
}

// nodeError is a problem of one value of the file, said after the value's line; in a document of
// one line, the Worker's JSON, locate says it after the value's key path instead, or, when the
// message names its place already (placed), without either.
type nodeError struct {
	node   *yaml.Node
	err    error
	placed bool
}

func (e *nodeError) Error() string { return fmt.Sprintf("line %d: %v", e.node.Line, e.err) }
func (e *nodeError) Unwrap() error { return e.err }

func (e *nodeError) located() (*yaml.Node, string, bool) { return e.node, e.err.Error(), e.placed }
