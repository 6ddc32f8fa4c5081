package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/runner"
)

func TestSubmitURLs(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		body string
		code int
		want string
	}{
		{`{"urls": []}`, 400, "urls is required"},
		{`{"url": ["x"]}`, 400, `the body must be one JSON object like {\"urls\"`},
		{`{"urls": ["` + w.site.URL + `/x"]} trailing`, 400, "something follows the JSON object"},
		{`{"urls": ["` + w.site.URL + `/x"]}{"urls": ["` + w.site.URL + `/y"]}`, 400, "something follows the JSON object"},
		{`{"urls": ["` + strings.Replace(w.site.URL, "http://", "https://", 1) + `/x"]}`, 400, `"reason":"https://, not http:// as the site's baseUrl`},
		{`{"urls": ["https://elsewhere.example/x"]}`, 400, `"reason":"on host elsewhere.example, not the site's`},
		{`{"urls": ["` + w.site.URL + `/x#top"]}`, 400, `"error":"none of the URLs can be submitted for site filesite: see each one's reason"`},
		{`{"urls": ["` + w.site.URL + `/x"], "channel": "yandex"}`, 400, "channel must be one of all"},
		{`{"urls": [` + strings.Repeat(`"u",`, maxSubmitURLs) + `"u"]}`, 400, "send at most 10000 at once"},
		{`{"urls": ["` + strings.Repeat("x", maxSubmitBody) + `"]}`, 413, "the body is larger than"},
	} {
		if code, body := w.call("POST", "/api/sites/filesite/urls", tc.body); code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%.60s: %d %.300s", tc.body, code, body)
		}
	}
	// The documented most: 10,000 URLs of 2,048 characters, as an encoder writes them (Go's
	// escapes "&" as \u0026) — taken whole, each refused here for its host, not the body for its size.
	long := make([]string, maxSubmitURLs)
	for i := range long {
		u := fmt.Sprintf("https://elsewhere.example/%05d?a=1&b=2&c=3&d=4&e=5&p=", i)
		long[i] = u + strings.Repeat("x", runner.MaxURLLength-len(u))
	}
	doc, _ := json.Marshal(map[string][]string{"urls": long})
	if code, body := w.call("POST", "/api/sites/filesite/urls", string(doc)); code != http.StatusBadRequest || !strings.Contains(body, "none of the URLs can be submitted") {
		t.Errorf("10,000 URLs of 2,048 characters (%d bytes): %d %.200s", len(doc), code, body)
	}
	// A URL refused is echoed at most 200 characters.
	tooLong := w.site.URL + "/" + strings.Repeat("y", 3000)
	code, body := w.call("POST", "/api/sites/filesite/urls", `{"urls": ["`+tooLong+`"]}`)
	if want := `{"url":"` + tooLong[:200] + `…","reason":"longer than 2048 characters"}`; code != http.StatusBadRequest || !strings.Contains(body, want) {
		t.Errorf("a URL too long: %d %.300s; want it echoed as %.60s…", code, body, want)
	}
	if code, body := w.call("POST", "/api/sites/nope/urls", `{"urls": ["x"]}`); code != http.StatusNotFound {
		t.Errorf("an unknown site: %d %s", code, body)
	}
	if code, _ := w.call("POST", "/api/sites/filesite/urls", `{"urls": ["`+w.site.URL+`/x"]}`, ""); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d", code)
	}

	page := w.site.URL + "/landing/from-cms"
	code, body = w.call("POST", "/api/sites/FileSite/urls", fmt.Sprintf(`{"urls": [%q, "https://elsewhere.example/y"], "channel": "indexnow"}`, page))
	var resp struct {
		RunID   int64 `json:"runId"`
		URLs    int   `json:"urls"`
		Refused []struct{ URL, Reason string }
	}
	decode(t, body, &resp)
	if code != http.StatusAccepted || resp.RunID == 0 || resp.URLs != 1 || len(resp.Refused) != 1 || resp.Refused[0].URL != "https://elsewhere.example/y" {
		t.Fatalf("a submit: %d %s", code, body)
	}
	w.waitFinished("filesite")
	if got := w.engine.Accepted(); !slices.Equal(got, []string{page}) {
		t.Errorf("the engine got %v, want only %s", got, page)
	}
	if len(w.bing.Accepted()) != 0 {
		t.Error("a submit on indexnow went to Bing too")
	}
	_, runs := w.call("GET", "/api/sites/filesite/runs", "")
	if !strings.Contains(runs, fmt.Sprintf(`"id":%d`, resp.RunID)) || !strings.Contains(runs, `"trigger":"manual"`) {
		t.Errorf("the submit's run is not in the history as manual: %.400s", runs)
	}
}
