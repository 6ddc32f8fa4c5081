package config

import (
	"go.yaml.in/yaml/v3"
)

// decode turns a checked tree, without empty values, into a Config. Each layer is decoded onto the
// one below it: the top level onto the built-in values, the defaults onto Builtin(), and each site
// onto Builtin() with the defaults decoded over it. yaml.v3 sets only the keys a mapping gives,
// merges a nested mapping field by field and replaces a list whole (with a new slice, so no two
// sites share one), which is exactly the documented inheritance.
func decode(root *yaml.Node) (*Config, error) {
	c := builtinConfig()
	if lookup(root, keyWebhook) != nil {
		c.Webhook = &Webhook{FailureRate: defaultFailureRate}
	}
	if err := root.Decode(&c); err != nil {
		return nil, err
	}
	c.Sites = nil // decoded without their layers above; built again below
	for _, n := range siteNodes(root) {
		s := Site{Settings: Builtin()}
		if d := lookup(root, keyDefaults); d != nil {
			if err := d.Decode(&s.Settings); err != nil {
				return nil, err
			}
		}
		if err := n.Decode(&s); err != nil {
			return nil, err
		}
		c.Sites = append(c.Sites, s)
	}
	return &c, nil
}

// siteNodes returns the mappings of the sites, in file order.
func siteNodes(root *yaml.Node) []*yaml.Node {
	if sites := lookup(root, keySites); sites != nil {
		return sites.Content
	}
	return nil
}
