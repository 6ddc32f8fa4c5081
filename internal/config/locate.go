package config

import (
	"bytes"
	"errors"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// located is an error about one value of the file: the value, the message without its line, and
// whether the message names the value's place itself.
type located interface {
	located() (n *yaml.Node, msg string, placed bool)
}

// oneLine reports whether data is a document of one line, like the JSON the Worker's
// SITEPUSH_CONFIG holds in .dev.vars: there "line 1" says nothing, and the key path says where.
func oneLine(data []byte) bool {
	return !bytes.ContainsAny(bytes.TrimSpace(data), "\n\r")
}

// locate rewrites each of the joined errors about a value of root to name the value's key path,
// like sites[0].indexnow.key, instead of its line, or only to drop the line when the message
// names the place itself. Any other error is left as it is.
func locate(err error, root *yaml.Node) error {
	if err == nil {
		return nil
	}
	paths := map[*yaml.Node]string{}
	keyPaths(root, "", paths)
	var rewrite func(error) error
	rewrite = func(err error) error {
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			var out []error
			for _, e := range joined.Unwrap() {
				out = append(out, rewrite(e))
			}
			return errors.Join(out...)
		}
		l, ok := err.(located)
		if !ok {
			return err
		}
		n, msg, placed := l.located()
		path, ok := paths[n]
		switch {
		case placed:
			return errors.New(msg)
		case !ok:
			return err
		case path == "":
			path = "the configuration"
		}
		return errors.New(path + ": " + msg)
	}
	return rewrite(err)
}

// keyPaths records the key path of n and of every key and value under it: a key has the path
// of its value.
func keyPaths(n *yaml.Node, path string, paths map[*yaml.Node]string) {
	paths[n] = path
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := join(path, n.Content[i].Value)
			paths[n.Content[i]] = p
			keyPaths(n.Content[i+1], p, paths)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			keyPaths(c, path+"["+strconv.Itoa(i)+"]", paths)
		}
	}
}
