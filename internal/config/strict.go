package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	configType   = reflect.TypeFor[Config]()
	siteType     = reflect.TypeFor[Site]()
	settingsType = reflect.TypeFor[Settings]()
	durationType = reflect.TypeFor[Duration]()
	sitemapType  = reflect.TypeFor[Sitemap]()
)

// checker walks a tree against the Go types by their yaml tags and reports, with lines, every key
// that is unknown or given twice and every value of the wrong shape or type. Decoding alone would
// stop at the first problem and could not name the field path.
type checker struct {
	errs []error
}

// checkTree checks a flattened document tree against Config.
func checkTree(root *yaml.Node) error {
	c := &checker{}
	c.value(root, configType, place{})
	return errors.Join(c.errs...)
}

func (c *checker) add(n *yaml.Node, format string, args ...any) {
	c.errs = append(c.errs, atLine(n, format, args...))
}

// value checks n against t. An empty value fits every field: it means "not given", and is dropped
// after this check.
func (c *checker) value(n *yaml.Node, t reflect.Type, p place) {
	if isNull(n) {
		return
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		c.mapping(n, t, p)
	case reflect.Slice:
		c.list(n, t.Elem(), p)
	default:
		c.scalar(n, t, p)
	}
}

func (c *checker) mapping(n *yaml.Node, t reflect.Type, p place) {
	if n.Kind != yaml.MappingNode && t == sitemapType {
		c.errs = append(c.errs, sitemapsHint(n, p))
		return
	}
	if n.Kind != yaml.MappingNode {
		c.add(n, "%s must be a mapping of keys, got %s", p.subject(), kindName(n))
		return
	}
	fields := yamlFields(t)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			c.add(k, "%skey %q is given twice%s (first at line %d); remove one", p.prefix(), k.Value, p.in(), line)
			continue
		}
		seen[k.Value] = k.Line
		f, ok := findField(fields, k.Value)
		if !ok {
			c.errs = append(c.errs, unknownKey(k, p, fields))
			continue
		}
		if path := join(p.path, k.Value); p.label == keyDefaults && siteOnly(path) != "" {
			c.add(k, "defaults: %s belongs to each site and cannot be given in defaults (%s); give it on the site", path, siteOnly(path))
			continue
		}
		c.value(v, f.typ, enter(p, f))
	}
}

// enter is the place of a field's value: the defaults get their own label, like a site.
func enter(p place, f field) place {
	if f.typ == settingsType {
		return place{label: keyDefaults}
	}
	return p.field(f.name)
}

func (c *checker) list(n *yaml.Node, elem reflect.Type, p place) {
	if n.Kind != yaml.SequenceNode {
		c.add(n, "%s must be a list like [a, b], got %s", p.subject(), kindName(n))
		return
	}
	for i, e := range n.Content {
		q := p.index(i)
		if elem == siteType && isNull(e) {
			c.add(e, `site #%d is empty; remove the "-" or give its keys`, i+1)
			continue
		}
		if elem == siteType {
			id := ""
			if v := lookup(e, keyID); v != nil && v.Kind == yaml.ScalarNode {
				id = v.Value
			}
			q = place{label: siteLabel(id, i)}
		}
		c.value(e, elem, q)
	}
}

// scalar checks a single value by decoding it into a fresh value of the field's type. yaml.v3
// truncates a fractional number into an integer field, so a whole number must also be written as one.
func (c *checker) scalar(n *yaml.Node, t reflect.Type, p place) {
	if n.Kind != yaml.ScalarNode {
		c.add(n, "%s must be a single value, got %s", p.subject(), kindName(n))
		return
	}
	if n.Decode(reflect.New(t).Interface()) == nil && (!wholeNumber(t) || n.ShortTag() == "!!int") {
		return
	}
	if t.Kind() == reflect.String {
		// Only an explicit tag (!!int x) makes text fail; the value is not shown, as it may be a secret.
		c.add(n, "%s must be text, got a value tagged %s; remove the tag", p.subject(), n.ShortTag())
		return
	}
	c.add(n, "%s %s, got %q", p.subject(), typeRule(t), n.Value)
}

// wholeNumber reports whether t holds integers in YAML; a Duration is an integer only in Go.
func wholeNumber(t reflect.Type) bool {
	return t != durationType && (t.Kind() == reflect.Int || t.Kind() == reflect.Int64)
}

// typeRule says what a value of type t, other than text, looks like in YAML.
func typeRule(t reflect.Type) string {
	switch {
	case t == durationType:
		return "must be a duration; " + durationSyntax
	case t.Kind() == reflect.Bool:
		return "must be true or false"
	case wholeNumber(t):
		return "must be a whole number"
	}
	return "must be a number"
}

// unknownKey explains a key the type does not have, listing the known ones and the likely typo.
func unknownKey(k *yaml.Node, p place, fields []field) error {
	if p.label == keyDefaults && p.path == "" {
		if _, ok := findField(yamlFields(siteType), k.Value); ok {
			return atLine(k, "defaults: %s belongs to each site and cannot be given in defaults", k.Value)
		}
	}
	if c := specOf(p.path); c != nil && c.backlog == nil && k.Value == keyBacklog {
		return atLine(k, "%s%s.%s is not a setting: %s; remove %s here (%s applies to %s)", p.prefix(), c.name, keyBacklog,
			c.firstRun, keyBacklog, keyBacklog, strings.Join(backlogChannels, " and "))
	}
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		if p.label != keyDefaults || siteOnly(join(p.path, f.name)) == "" {
			names = append(names, f.name)
		}
	}
	msg := fmt.Sprintf("%sunknown key %q%s (known: %s)", p.prefix(), k.Value, p.in(), strings.Join(names, ", "))
	if s := suggest(k.Value, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return atLine(k, "%s", msg)
}

// sitemapsHint explains a URL, or a list, given to sitemap, the settings for reading sitemaps:
// one letter short of sitemaps, the list of sitemaps to read, which is what was meant.
func sitemapsHint(n *yaml.Node, p place) error {
	meant := "[URL]"
	if n.Kind == yaml.ScalarNode {
		meant = "[" + n.Value + "]"
	}
	where := ""
	if p.label == keyDefaults {
		where = " on each site"
	}
	return atLine(n, "%s holds the settings for reading sitemaps (a mapping like {timeout: 30s}), not the sitemaps; "+
		"did you mean `%s: %s`%s?", p.subject(), keySitemaps, meant, where)
}
