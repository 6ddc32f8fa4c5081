package indexnow_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/sitepush/sitepush/internal/config"
)

// answering answers every request with status, content type and body.
func answering(status int, contentType, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
}

// An endpoint may be any service (an internal port, a proxy): what it answers is quoted only when
// it has the shape of an engine's error, and otherwise described.
func TestOnlyAnEnginesOwnWordsAreQuoted(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		body        string
		want        []string
	}{
		{"plain text", 503, "text/plain", "db=10.0.0.7 user=admin password=hunter2",
			[]string{"HTTP 503 Service Unavailable from https://engine.example/indexnow (plain text, text/plain)", "it is tried again next run"}},
		{"an HTML page", 400, "text/html; charset=utf-8", "<html><head><title>Admin hunter2</title></head></html>",
			[]string{"HTTP 400 Bad Request from https://engine.example/indexnow (an HTML page, text/html)", "malformed"}},
		{"JSON of another shape", 400, "application/json", `{"token": "hunter2", "message": {"x": 1}}`,
			[]string{"HTTP 400 Bad Request from https://engine.example/indexnow (JSON, application/json)"}},
		{"an empty body", 502, "", "", []string{"HTTP 502 Bad Gateway from https://engine.example/indexnow (empty)"}},
		{"HTML without a content type", 500, "", "<!DOCTYPE html><p>hunter2</p>", []string{"(an HTML page, no Content-Type)"}},
		{"a file, in plain text", 403, "text/plain", "[db]\nhost=10.0.0.7\nuser=admin\npassword=hunter2\n",
			[]string{"HTTP 403 Forbidden from https://engine.example/indexnow (plain text, text/plain): key not valid: check that https://www.example.com/" + key + ".txt serves exactly the key"}},
		{"a long text on one line", 400, "text/plain", strings.Repeat("lorem ipsum ", 50) + "hunter2",
			[]string{"HTTP 400 Bad Request from https://engine.example/indexnow (plain text, text/plain)"}},
		{"plain text sent as HTML", 400, "text/html", "hunter2 is not a valid key",
			[]string{"HTTP 400 Bad Request from https://engine.example/indexnow (plain text, text/html)"}},
		{"XML", 422, "application/xml", `<?xml version="1.0"?><error>hunter2</error>`,
			[]string{"HTTP 422 Unprocessable Entity from https://engine.example/indexnow (XML, application/xml)"}},
		{"an engine's reason in plain text", 403, "text/plain; charset=utf-8", "Key file content does not match the key.\n",
			[]string{`HTTP 403 Forbidden from https://engine.example/indexnow (the engine said "Key file content does not match the key."): key not valid`}},
		{"an engine's reason without a content type, on two lines", 422, "", "URL does not belong to the host.\r\nSee the docs.",
			[]string{`(the engine said "URL does not belong to the host. See the docs.")`}},
		{"an engine's reason, printable characters only", 400, "text/plain", "bad \x1b[31mrequest\x1b[0m\u200b\x7f",
			[]string{`(the engine said "bad [31mrequest[0m")`}},
		{"an engine's JSON message, printable characters only", 400, "application/json", `{"message": "bad \u001b[31mkey\u0007"}`,
			[]string{`(the engine said "bad [31mkey")`}},
		{"an engine's reason, clipped", 400, "text/plain", strings.Repeat("y", 300),
			[]string{`(the engine said "` + strings.Repeat("y", 200) + `…")`}},
		{"an engine's reason as a JSON string", 429, "application/json", `"Too many requests from this network"`,
			[]string{`HTTP 429 Too Many Requests from https://engine.example/indexnow (the engine said "Too many requests from this network")`}},
		{"an engine's message", 422, "application/json", `{"code": 422, "message": "URL https://other.example/x does not belong to the host"}`,
			[]string{`(the engine said "URL https://other.example/x does not belong to the host")`, "URLs do not belong to host www.example.com"}},
		{"an engine's error, the key masked", 400, "application/json; charset=utf-8", `{"error": "key ` + key + ` is not valid"}`,
			[]string{`(the engine said "key a1b2… is not valid")`}},
		{"an engine's detail, clipped", 400, "application/problem+json", `{"detail": "` + strings.Repeat("x", 300) + `"}`,
			[]string{`(the engine said "` + strings.Repeat("x", 200) + `…")`}},
		{"a service's 5xx in the shape of an error", 500, "application/json", `{"error": "Internal Server Error", "message": "jdbc:postgresql://db/hunter2 refused"}`,
			[]string{"HTTP 500 Internal Server Error from https://engine.example/indexnow (JSON, application/json)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(in *config.IndexNow) { in.MaxRetries, in.BatchSize, in.MaxConcurrent = 0, 1, 1 })
				w.client.Transport = clientOf(answering(tc.status, tc.contentType, tc.body)).Transport
				all := strings.Join(w.run(w.due(pages(1))).Errors(), "\n")
				for _, want := range tc.want {
					if !strings.Contains(all, want) {
						t.Errorf("errors %q, want %q in them", all, want)
					}
				}
				if strings.Contains(all, "hunter2") || strings.Contains(strings.ReplaceAll(all, key+".txt", ""), key) {
					t.Errorf("errors %q quote a private body", all)
				}
			})
		})
	}
}
