package config

import (
	"go.yaml.in/yaml/v3"
)

// kindName names a node's kind the way a user reading the file thinks of it, for error messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping of keys"
	case yaml.SequenceNode:
		return "a list"
	default:
		return "a single value"
	}
}

// isNull reports whether a node is an empty value (`key:`, `key: ~` or `key: null`), which the
// loader treats as "not given": the inherited value stays.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// lookup returns the value of key in a mapping node, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// dropNulls removes, in place, every key whose value is empty from the mappings of a flattened
// tree (flattening copies every mapping, so no alias target is changed). Removing them once gives
// "not given, keep the inherited value" to every kind of field, lists and mappings included, in
// defaults as in sites, without any later stage having to know about empty values.
func dropNulls(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !isNull(n.Content[i+1]) {
				kept = append(kept, n.Content[i], n.Content[i+1])
			}
		}
		n.Content = kept
	}
	for _, c := range n.Content {
		dropNulls(c)
	}
}
