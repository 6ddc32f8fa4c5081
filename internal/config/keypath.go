package config

import (
	"fmt"
	"reflect"
	"strings"
)

// keyPath returns the key path of the field that at points into a T ("bing.apiKey" of
// &s.Bing.APIKey in Settings), by the yaml tag of each field on the way; the json tags, the
// API's keys, are the same (TestTagsAgree). Deriving the path from the types keeps a key written
// once, in its struct tag, where the code would otherwise repeat it as text. It is computed once,
// for the package's tables: a field that is not in T is a mistake of the code, and panics as the
// package starts.
func keyPath[T any](at func(*T) any) string {
	var zero T
	root := reflect.ValueOf(&zero).Elem()
	target := reflect.ValueOf(at(&zero))
	if path, ok := findPath(root, target, ""); ok {
		return path
	}
	panic(fmt.Sprintf("config: the field at %s is not in %s", target.Type(), root.Type()))
}

// findPath looks for the field of v whose address and type are target's, and returns its path
// after prefix. An `,inline` struct adds nothing to the path, as in the file.
func findPath(v, target reflect.Value, prefix string) (string, bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		fv := v.Field(i)
		path := prefix
		if opts != "inline" {
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			path = join(prefix, name)
		}
		if fv.Addr().Pointer() == target.Pointer() && fv.Addr().Type() == target.Type() {
			return path, true
		}
		if fv.Kind() == reflect.Struct {
			if p, ok := findPath(fv, target, path); ok {
				return p, true
			}
		}
	}
	return "", false
}

// join puts key after prefix, with a dot between when prefix is not empty.
func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// settingKey is the yaml key path of a field of Settings: "indexnow.key".
func settingKey(at func(*Settings) any) string { return keyPath(at) }

// topKey is the yaml key of a field of Config: "adminToken".
func topKey(at func(*Config) any) string { return keyPath(at) }

// The keys of the file the loader reads by name, from the tags of Config and Site.
var (
	keyAdminToken   = topKey(func(c *Config) any { return &c.AdminToken })
	keyMetricsToken = topKey(func(c *Config) any { return &c.MetricsToken })
	keyWebhook      = topKey(func(c *Config) any { return &c.Webhook })
	keyDefaults     = topKey(func(c *Config) any { return &c.Defaults })
	keySites        = topKey(func(c *Config) any { return &c.Sites })
	keyID           = keyPath(func(s *Site) any { return &s.ID })
	keySitemaps     = keyPath(func(s *Site) any { return &s.Sitemaps })
	keyBacklog      = settingKey(func(s *Settings) any { return &s.Backlog })
)
