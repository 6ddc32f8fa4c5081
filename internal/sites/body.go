package sites

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
)

// object decodes a JSON object.
func object(body []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, errorOf(ErrInvalid, "a site must be a JSON object with the configuration file's keys, like "+
			`{"id": "example.com", "sitemaps": ["https://example.com/sitemap.xml"]}`)
	}
	return m, nil
}

// asGiven decodes a body that parsed as a site; nil when it is no object (parsing said why).
func asGiven(body []byte) map[string]any {
	m, _ := object(body)
	return m
}

// given turns the body of PUT /api/sites/{id} into what is stored for the site: its id (which the
// body may leave out, and may not change), and only what its author means to give. A key given
// back masked, as GET shows it, is the key the site has; a value equal to what the site now
// inherits or derives, and that it did not give itself, stays inherited — so that a client may
// GET a site, change a field and PUT it back without freezing every default and derived value
// (a keyLocation derived from an old key, a baseUrl from an old sitemap).
func given(id string, body, stored []byte, current *config.Site) ([]byte, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	if raw, ok := m["id"]; ok {
		given, isText := raw.(string)
		if !isText || !strings.EqualFold(given, id) {
			return nil, errorOf(ErrInvalid, `the body's id %s is not the site's, %q; a site cannot be renamed: create the new one and delete the old`,
				compact(raw), id)
		}
	}
	m["id"] = id
	own, _ := object(stored)
	if own == nil {
		own = map[string]any{}
	}
	effective := map[string]any{}
	if current != nil {
		b, _ := json.Marshal(current)
		effective, _ = object(b)
		unmask(m, own, current)
	}
	inherit(m, own, effective)
	return json.Marshal(m)
}

// unmask puts a key given back masked back as the site has it: its own, or none when inherited.
func unmask(m, own map[string]any, site *config.Site) {
	for _, k := range config.Credentials {
		if k.File { // shown as it is, never masked
			continue
		}
		block, _ := m[k.Block].(map[string]any)
		given, _ := block[k.Key].(string)
		if block == nil || !config.IsMasked(given, k.Value(&site.Settings)) {
			continue
		}
		if ownBlock, _ := own[k.Block].(map[string]any); ownBlock != nil && ownBlock[k.Key] != nil {
			block[k.Key] = ownBlock[k.Key]
		} else {
			delete(block, k.Key)
		}
	}
}

// inherit drops from m the values the site did not give itself (own) and that equal what it has
// now (effective): they stay inherited or derived.
func inherit(m, own, effective map[string]any) {
	for k, v := range m {
		_, isOwn := own[k]
		sub, isObject := v.(map[string]any)
		effSub, effObject := effective[k].(map[string]any)
		switch {
		case isObject && effObject:
			ownSub, _ := own[k].(map[string]any)
			if ownSub == nil {
				ownSub = map[string]any{}
			}
			inherit(sub, ownSub, effSub)
			if len(sub) == 0 && !isOwn {
				delete(m, k)
			}
		case !isOwn && sameJSON(v, effective[k]):
			delete(m, k)
		}
	}
}

func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
