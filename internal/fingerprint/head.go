package fingerprint

import "bytes"

// meta takes in a <meta> tag of the head: its content is a field when its name is description or
// robots, in any case. Attribute order and quoting do not matter; of a repeated attribute, the
// tokenizer gives only the first, as a browser keeps it.
func (s *scanner) meta() {
	var name, content []byte
	for more := true; more; {
		var k, v []byte
		k, v, more = s.z.TagAttr()
		switch string(k) {
		case "name":
			name = bytes.TrimSpace(v)
		case "content":
			content = v
		}
	}
	var field *sink
	switch {
	case bytes.EqualFold(name, []byte("description")):
		field = &s.description
	case bytes.EqualFold(name, []byte("robots")):
		field = &s.robots
	default:
		return
	}
	write(content, field)
	field.end()
}

// link takes in a <link> tag of the head: its href is a field when one of its rel values is
// canonical, in any case.
func (s *scanner) link() {
	var rel, href []byte
	for more := true; more; {
		var k, v []byte
		k, v, more = s.z.TagAttr()
		switch string(k) {
		case "rel":
			rel = v
		case "href":
			href = v
		}
	}
	for _, r := range bytes.Fields(rel) {
		if bytes.EqualFold(r, []byte("canonical")) {
			write(href, &s.canonical)
			s.canonical.end()
			return
		}
	}
}
