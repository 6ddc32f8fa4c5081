package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTagsAgree checks that the yaml and json tags of a site's settings name every key alike: the
// key paths derived from the yaml tags (keyPath, Credentials) are also the API's JSON keys.
func TestTagsAgree(t *testing.T) {
	var walk func(t reflect.Type)
	seen := map[reflect.Type]bool{}
	walk = func(typ reflect.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			y, yopts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			j, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if yopts != "inline" && y != j {
				t.Errorf("%s.%s: yaml key %q, json key %q", typ.Name(), f.Name, y, j)
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != durationType {
				walk(ft)
			}
		}
	}
	walk(siteType)
}

// TestChannelTable checks the table of channels against the types: each channel is a block of
// the settings with an enabled key, in Channels' order; the backlog and credential keys are keys
// of their blocks.
func TestChannelTable(t *testing.T) {
	blocks := map[string]reflect.Type{}
	for _, f := range yamlFields(settingsType) {
		if f.typ.Kind() == reflect.Struct {
			blocks[f.name] = f.typ
		}
	}
	isKey := func(path string) bool {
		block, key, _ := strings.Cut(path, ".")
		typ, ok := blocks[block]
		if !ok {
			return false
		}
		_, ok = findField(yamlFields(typ), key)
		return ok
	}
	if want := []string{"indexnow", "bing", "feed"}; !slices.Equal(Channels, want) {
		t.Errorf("Channels = %v, want %v", Channels, want)
	}
	for _, c := range channelSpecs {
		if _, ok := blocks[c.name]; !ok {
			t.Errorf("channel %q is no block of the settings", c.name)
		}
		if c.enabled == nil || c.preflights == nil || c.check == nil || c.off == "" {
			t.Errorf("channel %q: enabled, preflights, check and off are required", c.name)
			continue
		}
		if got := c.enabledKey(); got != c.name+".enabled" {
			t.Errorf("channel %q: enabled key %q", c.name, got)
		}
		if (c.backlog == nil) == (c.firstRun == "") {
			t.Errorf("channel %q: a channel has its own backlog or says why its first run is its own", c.name)
		}
		if c.backlog != nil && c.backlogKey() != c.name+".backlog" {
			t.Errorf("channel %q: backlog key %q", c.name, c.backlogKey())
		}
		if c.credential != nil && c.credential.Block != c.name {
			t.Errorf("channel %q: its credential is in block %q", c.name, c.credential.Block)
		}
		for _, k := range c.setUp {
			if !isKey(k) {
				t.Errorf("channel %q: set-up key %q is no key", c.name, k)
			}
		}
	}
	want := map[string]string{"bing.apiKey": "bing.endpoint", "indexnow.key": "indexnow.endpoints", "google.credentials": "google.endpoint"}
	for _, c := range Credentials {
		if dest := c.Block + "." + c.Dest; want[c.path()] != dest || !isKey(c.path()) || !isKey(dest) {
			t.Errorf("credential %s → %s; want %v", c.path(), dest, want)
		}
	}
	if len(Credentials) != len(want) {
		t.Errorf("%d credentials, want %d", len(Credentials), len(want))
	}
}

// notKeys are texts of the code that look like key paths and are not: the file name of a feed.
var notKeys = map[string]bool{"feed.xml": true}

// TestKeyPathsInCodeAreKeys checks every key path that the code of the repository writes in a
// string (a message, a rule's field: "indexnow.batchSize", "bing.apiKey") against the types'
// tags, so that a key renamed in its struct tag, or mistyped in a message, fails here rather than
// leaving a rule that never applies (problems.fieldf asks whether the scope wrote the key) or a
// message that names no key.
func TestKeyPathsInCodeAreKeys(t *testing.T) {
	blocks := map[string]reflect.Type{}
	for _, typ := range []reflect.Type{configType, settingsType} {
		for _, f := range yamlFields(typ) {
			ft := f.typ
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != settingsType {
				blocks[f.name] = ft
			}
		}
	}
	names := make([]string, 0, len(blocks))
	for name := range blocks {
		names = append(names, regexp.QuoteMeta(name))
	}
	// A block's name not inside a word, a host name or a path, then a dot and a key.
	pattern := regexp.MustCompile(`(?:^|[^\w./-])(` + strings.Join(names, "|") + `)\.([A-Za-z]\w*)`)
	found := 0
	fset := token.NewFileSet()
	for _, dir := range []string{"../../internal", "../../cmd"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			file, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				text, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for _, m := range pattern.FindAllStringSubmatch(text, -1) {
					if notKeys[m[1]+"."+m[2]] {
						continue
					}
					found++
					if _, ok := findField(yamlFields(blocks[m[1]]), m[2]); !ok {
						t.Errorf("%s: %s.%s is no key of the configuration, in %s", fset.Position(lit.Pos()), m[1], m[2], lit.Value)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if found < 50 {
		t.Errorf("found %d key paths in the code; the search is broken", found)
	}
}
