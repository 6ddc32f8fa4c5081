package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDocsExample keeps the example of docs/configuration.md loadable and complete: it must parse,
// next to the built site its changes.dir names, and name every key the file format has.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, _ := strings.Cut(string(doc), "## Example\n")
	_, example, _ = strings.Cut(example, "```yaml\n")
	example, _, found := strings.Cut(example, "```")
	if !found {
		t.Fatal("no yaml block after ## Example")
	}
	vars := map[string]string{"SITEPUSH_ADMIN_TOKEN": "t", "SITEPUSH_METRICS_TOKEN": "m", "SITEPUSH_WEBHOOK_URL": "https://hooks.example.com/x",
		"EXAMPLE_INDEXNOW_KEY": "abcd1234", "EXAMPLE_BING_KEY": "k"}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "public", "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Parse([]byte(example), dir, env(vars))
	if err != nil {
		t.Fatalf("the example does not load: %v", err)
	}
	if len(c.Sites) != 2 || c.Sites[0].Sitemaps[0] != "https://example.com/sitemap.xml" {
		t.Errorf("sites: %+v", c.Sites)
	}
	for _, key := range keyNames(configType) {
		if !strings.Contains(example, key+":") {
			t.Errorf("the example does not show %s", key)
		}
	}
}

// keyNames lists the keys of struct type t and of the structs under it.
func keyNames(t reflect.Type) []string {
	var names []string
	for _, f := range yamlFields(t) {
		names = append(names, f.name)
		ft := f.typ
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			names = append(names, keyNames(ft)...)
		}
	}
	return names
}
