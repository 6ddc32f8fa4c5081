package config

import (
	"go.yaml.in/yaml/v3"
)

// keySet holds the key paths a mapping of the file writes itself, like "feed" and
// "feed.maxItems", so that validation tells a scope's own values from the ones it inherits: a
// problem is reported where the value was written, once. A nil keySet stands for a site built
// outside the file (through the API), every value of which counts as its own.
type keySet map[string]bool

// keysOf returns the key paths of mapping m, nested mappings included; a nil m writes nothing.
func keysOf(m *yaml.Node) keySet {
	k := keySet{}
	if m != nil {
		k.add("", m)
	}
	return k
}

func (k keySet) add(prefix string, m *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		path := prefix + m.Content[i].Value
		k[path] = true
		if v := m.Content[i+1]; v.Kind == yaml.MappingNode {
			k.add(path+".", v)
		}
	}
}

// has reports whether the scope wrote the key at path itself.
func (k keySet) has(path string) bool {
	return k == nil || k[path]
}

// with returns the key paths of k and of other together; nil when either stands for every key.
func (k keySet) with(other keySet) keySet {
	if k == nil || other == nil {
		return nil
	}
	out := make(keySet, len(k)+len(other))
	for path := range k {
		out[path] = true
	}
	for path := range other {
		out[path] = true
	}
	return out
}
