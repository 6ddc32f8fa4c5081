package sites

import (
	"encoding/json"
	"fmt"

	"github.com/sitepush/sitepush/internal/config"
)

// object decodes a JSON object one level deep.
func object(body []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: a site must be a JSON object with the configuration file's keys, like "+
			`{"id": "example.com", "sitemaps": ["https://example.com/sitemap.xml"]}`, ErrInvalid)
	}
	return m, nil
}

// withID returns body with its id set to id when it has none: PUT /api/sites/{id} may leave it
// out. An id that is not the path's is refused: a site cannot be renamed.
func withID(body []byte, id string) ([]byte, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	if raw, ok := m["id"]; ok {
		var given string
		if json.Unmarshal(raw, &given) == nil && given != id {
			return nil, fmt.Errorf(`%w: the body's id %q is not the site's, %q; a site cannot be renamed: create the new one and delete the old`,
				ErrInvalid, given, id)
		}
		return body, nil
	}
	m["id"], _ = json.Marshal(id)
	return json.Marshal(m)
}

// unmask puts the keys of site id back where body gives them masked, as GET shows them: a client
// may send back what it read and change only what it means to. A key the site inherited is
// inherited again.
func (r *Registry) unmask(id string, body []byte) ([]byte, error) {
	r.mu.RLock()
	stored, current := r.raw[id], r.api[id]
	r.mu.RUnlock()
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	old, _ := object(stored)
	effective := map[string]string{}
	if current.Site != nil {
		effective["indexnow"], effective["bing"] = current.Site.IndexNow.Key, current.Site.Bing.APIKey
	}
	changed := false
	for _, k := range []struct{ block, key string }{{"indexnow", "key"}, {"bing", "apiKey"}} {
		given, ok := field(m, k.block, k.key)
		was, stored := field(old, k.block, k.key)
		if !ok || !(stored && config.IsMasked(given, was) || config.IsMasked(given, effective[k.block])) {
			continue
		}
		block, _ := object(m[k.block])
		if stored {
			block[k.key], _ = json.Marshal(was)
		} else {
			delete(block, k.key)
		}
		m[k.block], _ = json.Marshal(block)
		changed = true
	}
	if !changed {
		return body, nil
	}
	return json.Marshal(m)
}

// field returns the text at m[block][key], if it is text.
func field(m map[string]json.RawMessage, block, key string) (string, bool) {
	raw, ok := m[block]
	if !ok {
		return "", false
	}
	var b map[string]json.RawMessage
	if json.Unmarshal(raw, &b) != nil {
		return "", false
	}
	var v string
	if json.Unmarshal(b[key], &v) != nil {
		return "", false
	}
	return v, true
}
