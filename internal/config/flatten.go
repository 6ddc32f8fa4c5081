package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// maxNodes bounds the nodes that aliases may expand to, so that a "billion laughs" file fails fast
// instead of exhausting memory. The nodes written in the file are not counted: a file of 50,000
// sites has some 400,000, and its size bounds them.
const maxNodes = 100_000

// flattener rewrites a tree without aliases (*name) and merge keys (<<: *name), so that the later
// stages (strict keys, defaults inheritance, decoding) see plain mappings and lists whose nodes keep
// the line where their text was written.
type flattener struct {
	nodes  int // copied through aliases
	active map[*yaml.Node]bool
}

func flatten(root *yaml.Node) (*yaml.Node, error) {
	f := &flattener{active: map[*yaml.Node]bool{}}
	return f.node(root)
}

func (f *flattener) node(n *yaml.Node) (*yaml.Node, error) {
	if len(f.active) > 0 { // a node copied through an alias (f.active holds the aliases being expanded)
		if f.nodes++; f.nodes > maxNodes {
			return nil, fmt.Errorf("line %d: the aliases of this file expand to more than %d YAML nodes; "+
				"share settings through defaults: instead", n.Line, maxNodes)
		}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if f.active[n.Alias] {
			return nil, fmt.Errorf("line %d: alias *%s refers to a value that contains it", n.Line, n.Value)
		}
		f.active[n.Alias] = true
		defer delete(f.active, n.Alias)
		return f.node(n.Alias)
	case yaml.MappingNode:
		return f.mapping(n)
	}
	out := *n
	out.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		var err error
		if out.Content[i], err = f.node(c); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// mapping copies a mapping; the pairs of its merge keys come after its own keys and only when the
// mapping does not set them itself, and an earlier merge source wins over a later one, as YAML says.
func (f *flattener) mapping(n *yaml.Node) (*yaml.Node, error) {
	out := *n
	out.Content = nil
	var merged []*yaml.Node
	own := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		fv, err := f.node(v)
		if err != nil {
			return nil, err
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			src, err := mergeSources(fv)
			if err != nil {
				return nil, err
			}
			merged = append(merged, src...)
			continue
		}
		own[k.Value] = true
		out.Content = append(out.Content, k, fv)
	}
	for i := 0; i+1 < len(merged); i += 2 {
		if k := merged[i]; !own[k.Value] {
			own[k.Value] = true
			out.Content = append(out.Content, k, merged[i+1])
		}
	}
	return &out, nil
}

// mergeSources returns the key/value pairs a merge key brings: a mapping, or a list of mappings.
func mergeSources(v *yaml.Node) ([]*yaml.Node, error) {
	switch v.Kind {
	case yaml.MappingNode:
		return v.Content, nil
	case yaml.SequenceNode:
		var pairs []*yaml.Node
		for _, m := range v.Content {
			if m.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("line %d: a merge key (<<) takes mappings, got %s", m.Line, kindName(m))
			}
			pairs = append(pairs, m.Content...)
		}
		return pairs, nil
	}
	return nil, fmt.Errorf("line %d: a merge key (<<) takes a mapping or a list of mappings, got %s", v.Line, kindName(v))
}
