package config

import (
	"strings"
	"testing"
)

// TestOneLineConfigurationsNameTheKeyPath: in a configuration of one line, the JSON the Worker's
// SITEPUSH_CONFIG holds in .dev.vars, an error says where by key path, not by "line 1"; a message
// that names its place already drops the line; a syntax error says at which character the JSON
// breaks. A configuration of several lines keeps its line numbers.
func TestOneLineConfigurationsNameTheKeyPath(t *testing.T) {
	site := `{"id": "a", "sitemaps": ["https://a.example/s.xml"], "indexnow": {"enabled": true, "key": "${KEY}"}}`
	for _, tc := range []struct{ name, doc, want string }{
		{"an unset variable in a site", `{"sites": [` + site + `]}`,
			"sites[0].indexnow.key: environment variable KEY is not set; export it or remove ${KEY}"},
		{"in the second site", `{"sites": [` + strings.Replace(site, "${KEY}", "abcd1234", 1) + `, ` + strings.Replace(site, `"a"`, `"b"`, 1) + `]}`,
			"sites[1].indexnow.key: environment variable KEY is not set"},
		{"in the defaults", `{"defaults": {"bing": {"apiKey": "${BING}"}}, "sites": []}`,
			"defaults.bing.apiKey: environment variable BING is not set"},
		{"a malformed reference", `{"adminToken": "${A-B}"}`, "adminToken: ${A-B} is not a valid variable reference"},
		{"an unknown key", `{"sites": [{"id": "a", "sitemaps": ["https://a.example/s.xml"], "indexnow": {"endpoint": []}}]}`,
			`site "a": unknown key "endpoint" in indexnow`},
		{"a syntax error", `{"sites": [{"id": "a" "sitemaps": []}]}`,
			`line 1: did not find expected ',' or '}' (read as JSON: at character 23 of the line, invalid character '"' after object key:value pair)`},
		{"several lines", "sites:\n  - " + site + "\n", "line 2: environment variable KEY is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(tc.doc, nil)
			checkErr(t, err, tc.want)
			if err != nil && !strings.Contains(tc.doc, "\n") && strings.Contains(tc.want, "line 1") != strings.Contains(err.Error(), "line 1") {
				t.Errorf("error %q names line 1", err)
			}
		})
	}
}
