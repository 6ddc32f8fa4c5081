package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads and parses the configuration file at path for what reads every setting (serve).
// Config.Dir is the file's absolute directory, so relative paths in the file mean the same
// whichever directory cron starts sitepush from. Every error starts with the file's name as given.
func Load(path string, lookupEnv func(string) (string, bool)) (*Config, error) {
	return LoadFor(path, lookupEnv, Everything)
}

// LoadFor is Load for a command that reads what needs says: a ${VAR} left unset in a setting it
// does not read is no error, and is listed in Config.Unread.
func LoadFor(path string, lookupEnv func(string) (string, bool), needs Needs) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, noFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c, err := ParseFor(data, dir, lookupEnv, needs)
	if err != nil {
		return nil, prefixEach(path, err)
	}
	return c, nil
}

// noFile is the error of a configuration file that does not exist: most often a first run, before
// sitepush init wrote one, which is the fix it gives. It is an fs.ErrNotExist.
type noFile string

// Error says the file is missing, and how to write one.
func (path noFile) Error() string {
	return fmt.Sprintf("%s: no such file; write one for your site with `sitepush init URL --config %s` (URL: the site's address, "+
		"like https://example.com/), or point at another with --config FILE or $SITEPUSH_CONFIG", string(path), string(path))
}

// Is makes a missing configuration an fs.ErrNotExist.
func (noFile) Is(target error) bool { return target == fs.ErrNotExist }

// Parse parses a configuration for what reads every setting: ${VAR} expansion from lookupEnv,
// strict keys, defaults inherited by every site, derived values, relative paths resolved against
// dir, and validation. It reports every problem it finds at a stage, in file order, before giving
// up; the returned errors are joined. A nil lookupEnv means no variable is set. Empty values are
// dropped after the key check, so that a mistyped or misplaced key is reported even when its
// value is empty.
func Parse(data []byte, dir string, lookupEnv func(string) (string, bool)) (*Config, error) {
	return ParseFor(data, dir, lookupEnv, Everything)
}

// ParseFor is Parse for a command that reads what needs says (LoadFor).
func ParseFor(data []byte, dir string, lookupEnv func(string) (string, bool), needs Needs) (*Config, error) {
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if root, err = flatten(root); err != nil {
		return nil, err
	}
	where := func(err error) error { return err }
	if oneLine(data) {
		paths := root // the key paths before dropNulls takes empty values out
		where = func(err error) error { return locate(err, paths) }
	}
	unread, vars, err := expandTree(root, lookupEnv, needs)
	if err != nil {
		return nil, where(err)
	}
	// From here on an error may quote a value, which may hold a secret from the environment.
	if err := checkTree(root); err != nil {
		return nil, vars.redact(where(err))
	}
	dropNulls(root)
	c, err := decode(root)
	if err != nil {
		return nil, vars.redact(err)
	}
	c.Dir, c.Unread = dir, unread
	c.resolvePaths()
	if err := c.validate(root, needs); err != nil {
		return nil, vars.redact(where(err))
	}
	return c, nil
}

// Site returns the site of the file with the given id, for commands that take --site.
func (c *Config) Site(id string) (*Site, bool) {
	for i := range c.Sites {
		if c.Sites[i].ID == id {
			return &c.Sites[i], true
		}
	}
	return nil, false
}

// parseTree parses exactly one YAML document and returns its root value; an empty file is an empty
// mapping. Syntax errors keep yaml's line numbers, without its "yaml: " prefix.
func parseTree(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, next yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, syntaxError(err, data)
	}
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return nil, syntaxError(err, data)
	case len(next.Content) > 0 && !isNull(next.Content[0]):
		return nil, atLine(next.Content[0], "a second YAML document starts here; the configuration is one document")
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1}, nil
	}
	return doc.Content[0], nil
}

// syntaxError drops yaml's "yaml: " prefix. yaml.v3 leaves the line out of parse errors on the
// first line only (it omits line 0 of its own count); those get "line 1: " back. Its one other
// error without a line, an unknown anchor, names the anchor instead. An unquoted ${VAR} inside a
// flow mapping ({…}) is the likeliest cause of a syntax error there, and gets its fix, as does a
// tab on the line.
func syntaxError(err error, data []byte) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if !strings.HasPrefix(msg, "line ") && !strings.HasPrefix(msg, "unknown anchor") {
		msg = "line 1: " + msg
	}
	msg += jsonSpot(data)
	var n int
	if _, e := fmt.Sscanf(msg, "line %d:", &n); e == nil && n >= 1 {
		if at := problemLine(err, data); at > 0 {
			msg = fmt.Sprintf("line %d:%s", at, strings.TrimPrefix(msg, fmt.Sprintf("line %d:", n)))
			n = at
		}
		lines := strings.Split(string(data), "\n")
		msg = indentHint(msg, n, lines)
		if n <= len(lines) && strings.Contains(lines[n-1], "\t") && !strings.Contains(msg, "tab") {
			msg += " (a tab: YAML indents with spaces)"
		}
		for _, l := range lines[max(0, n-2):min(n+1, len(lines))] {
			if strings.Contains(l, "${") && strings.Contains(l, "{") {
				msg += `; inside {…} a ${VAR} must be quoted ("${VAR}"), or the mapping written in block style`
				break
			}
		}
	}
	return errors.New(msg)
}

// jsonSpot says where JSON on one line, the Worker's SITEPUSH_CONFIG in .dev.vars, breaks: the
// character encoding/json stops at, where "line 1" says nothing. It is "" for any other text.
func jsonSpot(data []byte) string {
	if !oneLine(data) || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return ""
	}
	var se *json.SyntaxError
	if err := json.Unmarshal(data, new(any)); errors.As(err, &se) {
		return fmt.Sprintf(" (read as JSON: at character %d of the line, %v)", se.Offset, se)
	}
	return ""
}

// maxProblemSearch bounds the lines problemLine parses prefixes of: configurations are short.
const maxProblemSearch = 2000

// problemLine finds the line of a syntax error: the last line of the shortest beginning of the
// document that fails with the same error. yaml.v3 names instead the line before the one where
// the mapping, sequence or bracket that holds the problem began (counted from 0), which points
// away from it. It returns 0 when no beginning reproduces the error.
func problemLine(err error, data []byte) int {
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > maxProblemSearch {
		return 0
	}
	var prefix strings.Builder
	for i, l := range lines {
		prefix.WriteString(l)
		var doc yaml.Node
		dec := yaml.NewDecoder(strings.NewReader(prefix.String()))
		e := dec.Decode(&doc)
		for e == nil {
			e = dec.Decode(&doc) // a second document may hold it
		}
		if e.Error() == err.Error() {
			return i + 1
		}
	}
	return 0
}

// prefixEach puts the file name before each of the joined errors, so that every line of the
// output says which file it is about.
func prefixEach(name string, err error) error {
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return fmt.Errorf("%s: %w", name, err)
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, prefixEach(name, e))
	}
	return errors.Join(out...)
}
