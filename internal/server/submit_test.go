package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestSubmitURLs(t *testing.T) {
	w := newWorld(t)
	for _, tc := range []struct {
		body string
		code int
		want string
	}{
		{`{"urls": []}`, 400, "urls is required"},
		{`{"url": ["x"]}`, 400, `the body must be JSON like {\"urls\"`},
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
	if code, body := w.call("POST", "/api/sites/nope/urls", `{"urls": ["x"]}`); code != http.StatusNotFound {
		t.Errorf("an unknown site: %d %s", code, body)
	}
	if code, _ := w.call("POST", "/api/sites/filesite/urls", `{"urls": ["`+w.site.URL+`/x"]}`, ""); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d", code)
	}

	page := w.site.URL + "/landing/from-cms"
	code, body := w.call("POST", "/api/sites/FileSite/urls", fmt.Sprintf(`{"urls": [%q, "https://elsewhere.example/y"], "channel": "indexnow"}`, page))
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
