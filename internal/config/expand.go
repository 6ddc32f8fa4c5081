package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
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

// unsetError is a ${NAME} whose variable is not set.
type unsetError struct {
	node *yaml.Node // the value that names it
	name string
}

func (e *unsetError) Error() string {
	return fmt.Sprintf("line %d: %s", e.node.Line, e.bare())
}

func (e *unsetError) bare() string {
	return fmt.Sprintf("environment variable %s is not set; export it or remove ${%s}", e.name, e.name)
}

func (e *unsetError) located() (*yaml.Node, string, bool) { return e.node, e.bare(), false }

// expander replaces ${VAR} in every scalar value of a flattened tree, in place. It works on
// values after parsing, not on the text, so that a secret containing YAML syntax stays one
// string, comments are never expanded, keys are left alone and line numbers stay exact; and after
// flattening, so that each place an alias is used is a value of its own, read or not by the
// command. Every problem is reported, once.
type expander struct {
	lookupEnv func(string) (string, bool)
	needs     Needs
	errs      []error
	said      map[string]bool
	unread    []Unread
}

// expandTree expands the tree for a command that reads what needs says, and returns the ${VAR}
// left unset in the settings it does not read: those settings are made empty (not given), and
// the variables it expanded, so that later errors can hide their values (expanded.redact).
func expandTree(root *yaml.Node, lookupEnv func(string) (string, bool), needs Needs) ([]Unread, expanded, error) {
	vars := expanded{}
	record := func(name string) (string, bool) {
		v, ok := lookupEnv(name)
		if ok {
			vars[name] = v
		}
		return v, ok
	}
	x := &expander{lookupEnv: record, needs: needs, said: map[string]bool{}}
	if root.Kind != yaml.MappingNode {
		x.walk(root)
		return nil, vars, x.err()
	}
	for i := 1; i < len(root.Content); i += 2 {
		key, v := root.Content[i-1].Value, root.Content[i]
		switch {
		case (key == keyAdminToken || key == keyMetricsToken) && !needs.Tokens:
			root.Content[i] = x.optional(v, Unread{Setting: key, NeededBy: tokenReaders(key), site: -1})
		case key == keyDefaults:
			x.scope(v, keyDefaults, -1)
		case key == keySites && v.Kind == yaml.SequenceNode:
			for j, s := range v.Content {
				x.scope(s, siteLabel(idOf(s), j), j)
			}
		default:
			x.walk(v)
		}
	}
	return x.unread, vars, x.err()
}

// expanded maps each variable a ${NAME} of the file was replaced from to its value.
type expanded map[string]string

// minRedacted is the shortest value redact hides: a shorter one is no secret worth the name, and
// replacing it would garble the rest of a message ("line 12", a quota of 250).
const minRedacted = 4

// redact replaces the value of every expanded variable in the messages of err with its ${NAME},
// so that a configuration error never prints a secret: a baseUrl of
// "https://x.example?k=${TOKEN}" is shown as written, not with the token. Numbers and booleans
// are no secrets and stay, as do values shorter than minRedacted. A joined error stays joined,
// one message an error, and an error whose message holds no value is returned as it was.
func (vars expanded) redact(err error) error {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, vars.redact(e))
		}
		return errors.Join(out...)
	}
	names := make([]string, 0, len(vars))
	for name, v := range vars {
		if redactable(v) {
			names = append(names, name)
		}
	}
	// The longest value first: a value that holds another is replaced whole.
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(vars[b]), len(vars[a])), strings.Compare(a, b))
	})
	msg := err.Error()
	for _, name := range names {
		v, ref := vars[name], "${"+name+"}"
		msg = strings.ReplaceAll(msg, v, ref)
		// A value quoted with %q has its special characters escaped.
		if q := strconv.Quote(v); q[1:len(q)-1] != v {
			msg = strings.ReplaceAll(msg, q[1:len(q)-1], ref)
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// redactable reports whether redact hides v: not a number, a boolean or a short value.
func redactable(v string) bool {
	if len(v) < minRedacted || v == "true" || v == "false" {
		return false
	}
	_, err := strconv.ParseFloat(v, 64)
	return err != nil
}

// tokenReaders says what reads adminToken or metricsToken: the Worker has no /metrics.
func tokenReaders(key string) string {
	if key == keyMetricsToken {
		return "sitepush serve needs it (run, check, submit and feed do not)"
	}
	return "sitepush serve and the Cloudflare Worker need it (run, check, submit and feed do not)"
}

// idOf returns the id a site's mapping gives, or "".
func idOf(site *yaml.Node) string {
	if v := lookup(site, keyID); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// scope expands the defaults or a site (site is its index, -1 for the defaults): the settings of
// a channel the command leaves out are optional.
func (x *expander) scope(m *yaml.Node, label string, site int) {
	if m.Kind != yaml.MappingNode {
		x.walk(m)
		return
	}
	for i := 1; i < len(m.Content); i += 2 {
		ch, block := m.Content[i-1].Value, m.Content[i]
		if block.Kind != yaml.MappingNode || !slices.Contains(Channels, ch) || x.needs.reads(ch) {
			x.walk(block)
			continue
		}
		for j := 1; j < len(block.Content); j += 2 {
			setting := ch + "." + block.Content[j-1].Value
			block.Content[j] = x.optional(block.Content[j], Unread{Scope: label, Setting: setting, NeededBy: channelReaders(ch), site: site})
		}
	}
}

// channelReaders says what reads the settings of channel ch.
func channelReaders(ch string) string {
	return fmt.Sprintf("what delivers through %s needs it (run and submit with --channel of another channel do not)", ch)
}

// optional expands a setting the command does not read. When a variable in it is not set, the
// setting becomes not given (an empty value, which keeps the inherited one) and each such
// variable is recorded as u; any other problem of a reference is an error, as anywhere.
func (x *expander) optional(n *yaml.Node, u Unread) *yaml.Node {
	inner := &expander{lookupEnv: x.lookupEnv, said: map[string]bool{}}
	inner.walk(n)
	var unset []*unsetError
	for _, err := range inner.errs {
		var ue *unsetError
		if errors.As(err, &ue) {
			unset = append(unset, ue)
		} else {
			x.add(err)
		}
	}
	if len(unset) == 0 {
		return n
	}
	for _, ue := range unset {
		u.Var, u.Line = ue.name, ue.node.Line
		x.unread = append(x.unread, u)
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
}

// walk expands every scalar value under n.
func (x *expander) walk(n *yaml.Node) {
	switch n.Kind {
	case yaml.ScalarNode:
		if err := expandScalar(n, x.lookupEnv); err != nil {
			x.add(err)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			x.walk(n.Content[i])
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			x.walk(c)
		}
	}
}

// add records a problem once: a value an alias repeats is expanded at each place it is used.
func (x *expander) add(err error) {
	if !x.said[err.Error()] {
		x.said[err.Error()] = true
		x.errs = append(x.errs, err)
	}
}

func (x *expander) err() error { return errors.Join(x.errs...) }

// expandScalar expands one value. A plain (unquoted) scalar loses its resolved tag so that YAML
// resolves the expanded text again: `dailyQuota: ${QUOTA}` is a number. An empty result is an
// empty string, not null, so that a set-but-empty variable overrides what a site would inherit.
func expandScalar(n *yaml.Node, lookupEnv func(string) (string, bool)) error {
	if !strings.Contains(n.Value, "$") {
		return nil
	}
	v, err := expandString(n.Value, lookupEnv)
	if ue, ok := err.(*unsetError); ok {
		ue.node = n
		return ue
	}
	if err != nil {
		return &nodeError{node: n, err: err}
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
		return "", "", &unsetError{name: name}
	}
	return v, s[end+1:], nil
}
