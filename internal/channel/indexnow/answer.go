package indexnow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
)

const (
	// maxPause is the longest a 429 holds an endpoint, whatever it asks: an engine that asks for
	// more (a day, or 10000000000 s) is tried again after an hour, when the run lasts that long.
	maxPause = time.Hour
	// maxSaid is how much of an engine's own message an error quotes, in characters.
	maxSaid = 200
	// maxBody is how much of an answer is read to judge it.
	maxBody = 4096
	// maxReason and maxReasonLines bound a plain-text answer that is quoted as the engine's
	// reason: beyond them it is a document (a page, a file), described and never quoted.
	maxReason      = 512
	maxReasonLines = 3
)

// verdict is what to do after one attempt.
type verdict int

const (
	accepted   verdict = iota
	retryLater         // 5xx, a network error: back off and try again
	throttled          // 429: wait as told, then try again
	refused            // this request will never succeed; others may
	broken             // no request to this endpoint will succeed in this run
)

// answer is the outcome of one attempt.
type answer struct {
	verdict verdict
	status  int
	wait    time.Duration // for throttled and a 503: what Retry-After asks, at most maxPause
	asked   string        // for throttled and a 503: Retry-After as the engine put it ("120 s"); "" without one
	msg     string        // the cause and the fix
}

// judge classifies an engine's answer (docs/runs.md, "IndexNow"): any 2xx accepts (Bing's
// endpoint answers 203 to some networks); 429 throttles; 5xx may pass (a 503 with Retry-After
// after that wait); 400, 403 and 422 never will, each explained.
func (c *Channel) judge(endpoint string, resp *http.Response) answer {
	// Read even when accepted: a body left unread costs the connection its reuse.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return answer{verdict: accepted, status: code}
	}
	status := fmt.Sprintf("HTTP %d %s from %s (%s)", code, http.StatusText(code), endpoint, c.describe(code, resp.Header.Get("Content-Type"), body))
	switch {
	case code == http.StatusTooManyRequests:
		wait, asked := channel.RetryAfter(resp.Header.Get("Retry-After"), time.Now(), maxPause)
		return answer{verdict: throttled, status: code, wait: wait, asked: asked,
			msg: status + ": the engine is throttling; lower indexnow.maxConcurrent or raise indexnow.interval"}
	case code == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
		// The engine says when it is back: that is waited for, as a 429's pause is.
		wait, asked := channel.RetryAfter(resp.Header.Get("Retry-After"), time.Now(), maxPause)
		return answer{verdict: retryLater, status: code, wait: wait, asked: asked,
			msg: status + ": the engine is unavailable for now"}
	case code >= 500:
		return answer{verdict: retryLater, status: code, msg: status + ": the engine failed"}
	case code == http.StatusForbidden:
		return answer{verdict: broken, status: code, msg: fmt.Sprintf("%s: key not valid: check that %s serves exactly the key", status, c.cfg.KeyLocation)}
	case code == http.StatusUnprocessableEntity:
		return answer{verdict: refused, status: code, msg: fmt.Sprintf("%s: URLs do not belong to host %s: check baseUrl and that keyLocation is on that host", status, c.host)}
	case code == http.StatusBadRequest:
		return answer{verdict: refused, status: code, msg: status + ": the engine refused the request as malformed: check indexnow.key and indexnow.keyLocation, and the URLs"}
	case code == http.StatusRequestEntityTooLarge:
		return answer{verdict: broken, status: code, msg: status + ": too many URLs in one request: lower indexnow.batchSize"}
	}
	return answer{verdict: broken, status: code, msg: status + ": check indexnow.endpoints"}
}

// describe says what an answer's body is. An endpoint may be any service — a proxy, a port of
// the machine itself — so a body is quoted only when it is an engine's refusal (a 4xx, the answers
// the protocol documents) that reads as its reason (enginesWords), and then only its printable
// characters, cut to maxSaid, with the key masked. Any other body — an HTML page, XML, a long
// text, other JSON, any 5xx — is described by its kind and type alone: it says nothing an engine
// would, and may be a service's private page.
func (c *Channel) describe(code int, contentType string, body []byte) string {
	if code < 400 || code >= 500 {
		return channel.Describe(contentType, body)
	}
	said := channel.Printable(enginesWords(contentType, body))
	if said == "" {
		return channel.Describe(contentType, body)
	}
	said = strings.ReplaceAll(said, c.cfg.Key, config.MaskKey(c.cfg.Key))
	if utf8.RuneCountInString(said) > maxSaid {
		said = string([]rune(said)[:maxSaid]) + "…"
	}
	return fmt.Sprintf("the engine said %q", said)
}

// enginesWords returns an engine's reason in a body, or "": the message of a JSON error — an
// object with a string member message, Message, error or detail — or a JSON string; or a short
// plain text, sent as text/plain or without a Content-Type: at most maxReason bytes on at most
// maxReasonLines lines. A longer text is a document, not a reason.
func enginesWords(contentType string, body []byte) string {
	body = bytes.TrimSpace(body)
	if json.Valid(body) {
		var said string
		if json.Unmarshal(body, &said) == nil {
			return said
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(body, &members) != nil {
			return ""
		}
		for _, k := range []string{"message", "Message", "error", "detail"} {
			if json.Unmarshal(members[k], &said) == nil && strings.TrimSpace(said) != "" {
				return said
			}
		}
		return ""
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	if contentType != "" && mt != "text/plain" || sniffed != "text/plain" ||
		len(body) > maxReason || bytes.Count(body, []byte("\n")) >= maxReasonLines {
		return ""
	}
	return string(body)
}
