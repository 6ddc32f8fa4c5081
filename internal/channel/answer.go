package channel

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Describe says what an answer's body is without quoting it — by its kind ("an HTML page",
// "JSON", "plain text"…) and its Content-Type: an endpoint may be any service, a proxy or a port
// of the machine itself, whose words have no place in a run's record.
func Describe(contentType string, body []byte) string {
	kind := bodyKind(body)
	if kind == "empty" {
		return kind
	}
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case contentType == "":
		mt = "no Content-Type"
	case err != nil || len(mt) > 80:
		mt = "an unreadable Content-Type"
	}
	return kind + ", " + mt
}

// bodyKind names what a body is, coarsely: empty, JSON, an HTML page, XML, plain text.
func bodyKind(body []byte) string {
	body = bytes.TrimSpace(body)
	switch {
	case len(body) == 0:
		return "empty"
	case json.Valid(body):
		return "JSON"
	}
	switch mt, _, _ := mime.ParseMediaType(http.DetectContentType(body)); mt {
	case "text/html":
		return "an HTML page"
	case "text/xml":
		return "XML"
	case "text/plain":
		return "plain text"
	}
	return "binary data"
}

// RetryAfter reads a Retry-After header: seconds, or an HTTP date (one past means now). The wait
// is at most limit — a number too large for a duration does not wrap to none — and asked says
// how the engine put it ("120 s"); 0 and "" when it said nothing readable.
func RetryAfter(v string, now time.Time, limit time.Duration) (wait time.Duration, asked string) {
	v = strings.TrimSpace(v)
	if v != "" && strings.Trim(v, "0123456789") == "" {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs > int64(limit/time.Second) {
			return limit, clipDigits(v) + " s"
		}
		return time.Duration(secs) * time.Second, v + " s"
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(0, t.Sub(now)), limit), "until " + t.UTC().Format(http.TimeFormat)
	}
	return 0, ""
}

// clipDigits shortens an absurdly long number for a message.
func clipDigits(v string) string {
	if len(v) > 24 {
		return v[:24] + "…"
	}
	return v
}
