package bing

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
)

// Bing's error codes (ApiErrorCode in the Webmaster API) that matter here.
const (
	codeInternalError  = 1
	codeUnknownError   = 2 // what Bing's quota refusal comes with
	codeInvalidAPIKey  = 3
	codeThrottleUser   = 4
	codeInvalidSiteURL = 5
	codeInvalidURL     = 7
	codeNotAuthorized  = 9
)

const (
	// maxBody is how much of an answer is read to judge it: Bing's are a few dozen bytes.
	maxBody = 4096
	// maxSaid is how much of Bing's message an error quotes, in bytes.
	maxSaid = 200
	// maxPause is the longest a 429 makes the channel wait, whatever Bing asks.
	maxPause = time.Hour
)

// verdict is what to do after one answer of Bing.
type verdict int

const (
	accepted   verdict = iota
	retryLater         // 5xx, a network error, Bing's internal error, an answer not Bing's: back off and try again
	throttled          // 429 or ThrottleUser: wait, then try again
	quotaSpent         // the daily quota is spent: stop for today
	badKey             // the key (or the site for this key) is refused: stop for the site
	badURL             // one URL of the batch is invalid: refuse it until it changes
	refused            // anything else: this batch fails
)

// answer is Bing's answer to one request.
type answer struct {
	verdict verdict
	status  int
	wait    time.Duration // for throttled and a 503: what Retry-After asks, at most maxPause
	asked   string        // for throttled and a 503: Retry-After as Bing put it ("120 s"); "" without one
	badURL  string        // for badURL: the URL named, when Bing names it
	cause   string        // what Bing said
	msg     string        // the cause and the fix
	broke   error         // why the body did not come in full (a deadline, a dropped connection); nil when it did
}

// bingError is the body of Bing's error answers.
type bingError struct {
	ErrorCode int
	Message   string
}

// judge reads an answer of SubmitUrlbatch (or of the quota call). Success is HTTP 200 with
// Bing's JSON, an object with a "d" member: anything else at 200 — a captive portal, a proxy's
// page — delivered nothing, and is tried again as a 5xx is. An answer whose body did not come in
// full (broke) is tried again too: what Bing meant is not known.
func (c *Channel) judge(resp *http.Response) answer {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	code := resp.StatusCode
	if err != nil {
		what := fmt.Sprintf("Bing at %s began its answer (HTTP %d) and did not end it (%v)", c.cfg.Endpoint, code, withoutURL(err))
		return answer{verdict: retryLater, status: code, cause: what, msg: what, broke: err}
	}
	if code == http.StatusOK && hasD(body) {
		return answer{verdict: accepted, status: code}
	}
	e, said, bings := c.bingsWords(body)
	what := fmt.Sprintf("Bing answered HTTP %d %s (%s)", code, http.StatusText(code), channel.Describe(resp.Header.Get("Content-Type"), body))
	if bings {
		what = fmt.Sprintf("Bing answered HTTP %d, ErrorCode %d: %s", code, e.ErrorCode, said)
	}
	a := answer{status: code, cause: what}
	switch {
	case code == http.StatusBadRequest && e.ErrorCode == codeUnknownError && strings.Contains(strings.ToLower(said), "quota"):
		a.verdict, a.msg = quotaSpent, what
	case code == http.StatusUnauthorized || e.ErrorCode == codeInvalidAPIKey:
		a.verdict, a.msg = badKey, fmt.Sprintf("%s: %v", what, ErrInvalidKey)
	case e.ErrorCode == codeInvalidSiteURL || e.ErrorCode == codeNotAuthorized:
		a.verdict, a.msg = badKey, fmt.Sprintf("%s: add and verify %s in Bing Webmaster Tools for this API key", what, c.siteURL)
	case code == http.StatusTooManyRequests || e.ErrorCode == codeThrottleUser:
		a.wait, a.asked = channel.RetryAfter(resp.Header.Get("Retry-After"), time.Now(), maxPause)
		a.verdict, a.msg = throttled, what+": Bing is throttling; it is tried again"
	case e.ErrorCode == codeInvalidURL:
		a.verdict, a.msg, a.badURL = badURL, what+": the URL is not sent again until it changes", namedURL(said)
	case code == http.StatusOK:
		a.verdict, a.msg = retryLater, what+", not Bing's JSON: something between sitepush and Bing (a captive portal, a proxy) answered in its place; check bing.endpoint and the network"
	case code == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
		// Bing says when it is back: that is waited for, as a 429's pause is.
		a.wait, a.asked = channel.RetryAfter(resp.Header.Get("Retry-After"), time.Now(), maxPause)
		a.verdict, a.msg = retryLater, what
	case code >= 500 || e.ErrorCode == codeInternalError:
		a.verdict, a.msg = retryLater, what
	default:
		a.verdict, a.msg = refused, what
	}
	return a
}

// hasD reports whether body is Bing's success: a JSON object with a "d" member ({"d":null}).
func hasD(body []byte) bool {
	var members map[string]json.RawMessage
	return json.Unmarshal(body, &members) == nil && members["d"] != nil
}

// bingsWords reads Bing's own error, a JSON object with ErrorCode and Message: the message,
// cleaned, clipped and with the API key masked. ok is false for any other body — the endpoint
// may be anything (a proxy, a port of the machine itself) — which is never quoted.
func (c *Channel) bingsWords(body []byte) (e bingError, said string, ok bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil ||
		json.Unmarshal(members["ErrorCode"], &e.ErrorCode) != nil || json.Unmarshal(members["Message"], &e.Message) != nil {
		return bingError{}, "", false
	}
	said = channel.Printable(e.Message)
	said = strings.TrimSpace(strings.TrimPrefix(said, "ERROR!!!"))
	if c.cfg.APIKey != "" {
		said = strings.ReplaceAll(said, c.cfg.APIKey, "…") // the key is a secret, even echoed
	}
	return e, human.Clip(said, maxSaid), true
}

// namedURL finds the URL an error message names, if any.
func namedURL(msg string) string {
	for _, f := range strings.Fields(msg) {
		if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
			return f
		}
	}
	return ""
}
