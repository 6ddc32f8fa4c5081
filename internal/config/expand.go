package config

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// isVarName reports whether name may stand between ${ and }: the portable shell variable name,
// a letter or "_", then letters, digits or "_".
func isVarName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c|0x20 && c|0x20 <= 'z' || c == '_' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return name != ""
}

// expandTree replaces ${VAR} in every scalar value of the tree, in place. It works on values after
// parsing, not on the text, so that a secret containing YAML syntax stays one string, comments are
// never expanded, keys are left alone and line numbers stay exact. Every problem is reported.
func expandTree(root *yaml.Node, lookupEnv func(string) (string, bool)) error {
	var errs []error
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			if err := expandScalar(n, lookupEnv); err != nil {
				errs = append(errs, err)
			}
		case yaml.MappingNode:
			for i := 1; i < len(n.Content); i += 2 {
				walk(n.Content[i])
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	walk(root)
	return errors.Join(errs...)
}

// expandScalar expands one value. A plain (unquoted) scalar loses its resolved tag so that YAML
// resolves the expanded text again: `dailyQuota: ${QUOTA}` is a number. An empty result is an
// empty string, not null, so that a set-but-empty variable overrides what a site would inherit.
func expandScalar(n *yaml.Node, lookupEnv func(string) (string, bool)) error {
	if !strings.Contains(n.Value, "$") {
		return nil
	}
	v, err := expandString(n.Value, lookupEnv)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	if v == n.Value {
		return nil
	}
	n.Value = v
	quoted := yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle | yaml.TaggedStyle
	switch {
	case v == "":
		n.Tag = "!!str"
	case n.Style&quoted == 0:
		n.Tag = ""
	}
	return nil
}

// expandString expands the braced references of s; $${ stands for a literal ${ and any other $ is kept.
func expandString(s string, lookupEnv func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "$")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "$${"):
			b.WriteString("${")
			s = s[3:]
		case strings.HasPrefix(s, "${"):
			v, rest, err := expandRef(s, lookupEnv)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			s = rest
		default:
			b.WriteString("$")
			s = s[1:]
		}
	}
}

// expandRef expands the reference at the start of s ("${NAME}…") and returns the rest of s.
func expandRef(s string, lookupEnv func(string) (string, bool)) (value, rest string, err error) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", "", fmt.Errorf(`"${" is not closed by "}"; write ${NAME}, or $${ for a literal "${"`)
	}
	name := s[2:end]
	if !isVarName(name) {
		return "", "", fmt.Errorf(`%s is not a valid variable reference: a name is letters, digits and "_", `+
			`not starting with a digit (write $${ for a literal "${")`, s[:end+1])
	}
	v, ok := lookupEnv(name)
	if !ok {
		return "", "", fmt.Errorf("environment variable %s is not set; export it or remove ${%s}", name, name)
	}
	return v, s[end+1:], nil
}
