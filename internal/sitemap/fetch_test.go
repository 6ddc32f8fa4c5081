package sitemap

import (
	"fmt"
	"strings"
	"testing"
)

func TestReadNeverQuotesABodyThatIsNotASitemap(t *testing.T) {
	// A sitemap may point at an internal service: what it answers stays out of errors and
	// warnings, which reach run records. Its status, content type, size and a coarse kind do not.
	const secret = "s3cr3t-internal"
	s := newTestSite(t)
	errorBody := "internal: token " + secret + " must stay here"
	s.put("/err.xml", &testPage{body: []byte("x"), statuses: []int{500, 403}, errorBody: errorBody})
	s.put("/json", &testPage{body: []byte(`{"token": "` + secret + `"}`), contentType: "application/json"})
	s.put("/text", &testPage{body: []byte("OK " + secret + "\nmore"), contentType: "text/plain"})
	s.put("/bin", &testPage{body: []byte("\x00\x01\x02" + secret), contentType: "application/octet-stream"})
	s.put("/html", &testPage{body: []byte("  \x0c<HTML><title>" + secret + "</title>"), contentType: "text/html"})
	o := fast()
	o.Retries = 1
	r := read(t, o, s.url("/err.xml"), s.url("/json"), s.url("/text"), s.url("/bin"), s.url("/html"))
	for _, w := range r.warnings {
		if strings.Contains(w, secret) {
			t.Errorf("warning quotes the body: %s", w)
		}
	}
	tests := []struct{ path, want string }{
		{"/err.xml", fmt.Sprintf("HTTP 403 Forbidden (text/plain; charset=utf-8, %d bytes)", len(errorBody))},
		{"/json", "not a sitemap: the body is neither XML nor a list of URLs: it looks like JSON (HTTP 200, application/json)"},
		{"/text", "not a sitemap: the body is neither XML nor a list of URLs: it is plain text (HTTP 200, text/plain)"},
		{"/bin", "not a sitemap: the body is neither XML nor a list of URLs: it looks like binary data (HTTP 200, application/octet-stream)"},
		{"/html", "not a sitemap: the body is neither XML nor a list of URLs: it looks like an HTML page (HTTP 200, text/html)"},
	}
	for _, tc := range tests {
		err := r.failure(tc.path)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v\nwant %s", tc.path, err, tc.want)
		}
	}
	if !r.warned(fmt.Sprintf("HTTP 500 Internal Server Error (text/plain; charset=utf-8, %d bytes); trying again", len(errorBody))) {
		t.Errorf("warnings %q", r.warnings)
	}
}
