package config

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ParseSite parses one site given as JSON (or YAML) with the configuration file's keys — a site
// created or replaced through the admin API — over the file's defaults, with the file's rules and
// messages: strict keys, inheritance, derived values, paths resolved against the file's
// directory, validation. ${VAR} is not expanded: the server's environment is not the API's to read.
func (c *Config) ParseSite(data []byte) (*Site, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("a site must be an object with the configuration file's keys, like "+
			`{"id": "example.com", "sitemaps": ["https://example.com/sitemap.xml"]}; got %s`, kindName(root))
	}
	if root, err = flatten(root); err != nil {
		return nil, err
	}
	id := ""
	if v := lookup(root, keyID); v != nil && v.Kind == yaml.ScalarNode {
		id = v.Value
	}
	label := place{label: siteLabel(id, 0)}
	if id == "" {
		label = place{label: "site"}
	}
	check := &checker{}
	check.value(root, siteType, label)
	if len(check.errs) > 0 {
		return nil, errors.Join(check.errs...)
	}
	dropNulls(root)
	// yaml.v3 replaces lists whole, so the site never writes into the defaults' slices.
	s := &Site{Settings: c.Defaults}
	if err := root.Decode(s); err != nil {
		return nil, err
	}
	s.resolveFiles(c.Dir)
	own := keysOf(root)
	s.unread = c.unreadOf(-1, own)
	s.given = own.with(c.defaultsGiven)
	if !own.has("feed.url") && s.Feed.URL == "" {
		// sitepush serve serves the feed of a site of the API: its self link is there.
		s.Feed.URL = c.ServedFeedURL(s.ID)
	}
	return s, errors.Join(labelled(label.label, s.prepare(own))...)
}

// Masked returns a copy of the site fit to show: its secrets (Credentials: the IndexNow key, the
// Bing API key) masked (MaskKey), but for the path of a key file, which is shown. The key stays
// whole inside keyLocation, where the site itself publishes it.
func (s *Site) Masked() Site {
	m := *s
	for _, c := range Credentials {
		if !c.File {
			*c.value(&m.Settings) = MaskKey(c.Value(&s.Settings))
		}
	}
	return m
}

// IsMasked reports whether v is what MaskKey shows of key: a client giving back a masked key
// means "unchanged".
func IsMasked(v, key string) bool {
	return key != "" && strings.HasSuffix(v, "…") && v == MaskKey(key)
}
