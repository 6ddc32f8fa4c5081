package indexnow

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/config"
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
	verdict   verdict
	status    int
	wait      time.Duration // for throttled: Retry-After
	waitGiven bool          // whether the engine gave a Retry-After
	msg       string        // the cause and the fix
}

// judge classifies an engine's answer (SPEC §4): 200 and 202 accept; 429 throttles; 5xx may pass;
// 400, 403 and 422 never will, each explained.
func (c *Channel) judge(endpoint string, resp *http.Response) answer {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	// An engine may echo the request: the key is shown only by its first characters.
	said := strings.ReplaceAll(strings.Join(strings.Fields(string(body)), " "), c.cfg.Key, config.MaskKey(c.cfg.Key))
	if said != "" {
		said = fmt.Sprintf(" (the engine said %q)", said)
	}
	code := resp.StatusCode
	status := fmt.Sprintf("HTTP %d %s from %s%s", code, http.StatusText(code), endpoint, said)
	switch {
	case code == http.StatusOK || code == http.StatusAccepted:
		return answer{verdict: accepted, status: code}
	case code == http.StatusTooManyRequests:
		wait, given := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		return answer{verdict: throttled, status: code, wait: wait, waitGiven: given,
			msg: status + ": the engine is throttling; lower indexnow.maxConcurrent or raise indexnow.interval"}
	case code >= 500:
		return answer{verdict: retryLater, status: code, msg: status + ": the engine failed; it is tried again next run"}
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

// retryAfter reads a Retry-After header: seconds, or an HTTP date (one past means now). given is
// false when there is none, or none that can be read.
func retryAfter(v string, now time.Time) (wait time.Duration, given bool) {
	v = strings.TrimSpace(v)
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}
