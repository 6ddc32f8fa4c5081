package bing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Bing's error codes (ApiErrorCode in the Webmaster API) that matter here.
const (
	codeInternalError  = 1
	codeInvalidAPIKey  = 3
	codeThrottleUser   = 4
	codeInvalidSiteURL = 5
	codeInvalidURL     = 7
	codeNotAuthorized  = 9
)

// ErrInvalidKey means Bing rejected the API key: nothing more can be sent for the site.
var ErrInvalidKey = errors.New("the API key was rejected: check bing.apiKey (copy it again from Bing Webmaster Tools, Settings, API access)")

// verdict is what to do after one answer of Bing.
type verdict int

const (
	accepted   verdict = iota
	retryLater         // 5xx, a network error, Bing's internal error: back off and try again
	throttled          // 429 or ThrottleUser: wait, then try again
	quotaSpent         // the daily quota is spent: stop for today
	badKey             // the key (or the site for this key) is refused: stop for the site
	badURL             // one URL of the batch is invalid: skip it
	refused            // anything else: this batch fails
)

// answer is Bing's answer to one request.
type answer struct {
	verdict verdict
	status  int
	wait    time.Duration
	badURL  string // for badURL: the URL named, when Bing names it
	cause   string // what Bing said
	msg     string // the cause and the fix
}

// bingError is the body of Bing's error answers.
type bingError struct {
	ErrorCode int
	Message   string
}

// judge reads an answer of SubmitUrlbatch.
func (c *Channel) judge(resp *http.Response) answer {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode == http.StatusOK {
		return answer{verdict: accepted, status: resp.StatusCode}
	}
	var e bingError
	json.Unmarshal(body, &e)
	said := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(e.Message), "ERROR!!!"))
	if said == "" {
		said = strings.Join(strings.Fields(string(body)), " ")
	}
	said = strings.ReplaceAll(said, c.cfg.APIKey, "…") // the key is a secret, even echoed
	what := fmt.Sprintf("Bing answered HTTP %d, ErrorCode %d: %s", resp.StatusCode, e.ErrorCode, clip(said, 200))
	a := answer{status: resp.StatusCode, cause: what}
	switch {
	case strings.Contains(strings.ToLower(said), "quota"):
		a.verdict, a.msg = quotaSpent, what
	case resp.StatusCode == http.StatusUnauthorized || e.ErrorCode == codeInvalidAPIKey:
		a.verdict, a.msg = badKey, fmt.Sprintf("%s: %v", what, ErrInvalidKey)
	case e.ErrorCode == codeInvalidSiteURL || e.ErrorCode == codeNotAuthorized:
		a.verdict, a.msg = badKey, fmt.Sprintf("%s: add and verify %s in Bing Webmaster Tools for this API key", what, c.siteURL)
	case resp.StatusCode == http.StatusTooManyRequests || e.ErrorCode == codeThrottleUser:
		a.verdict, a.msg, a.wait = throttled, what+": Bing is throttling; it is tried again", retryAfter(resp.Header.Get("Retry-After"))
	case e.ErrorCode == codeInvalidURL:
		a.verdict, a.msg, a.badURL = badURL, what+": the URL is skipped until it changes", namedURL(said)
	case resp.StatusCode >= 500 || e.ErrorCode == codeInternalError:
		a.verdict, a.msg = retryLater, what
	default:
		a.verdict, a.msg = refused, what
	}
	return a
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

// retryAfter reads a Retry-After header in seconds; 0 when absent.
func retryAfter(v string) time.Duration {
	var secs int
	if _, err := fmt.Sscan(strings.TrimSpace(v), &secs); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	return 0
}

// submitRequest is one SubmitUrlbatch request.
func (c *Channel) submitRequest(ctx context.Context, urls []string) (*http.Request, error) {
	body, err := json.Marshal(struct {
		SiteURL string   `json:"siteUrl"`
		URLList []string `json:"urlList"`
	}{c.siteURL, urls})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.Endpoint+"/SubmitUrlbatch?apikey="+url.QueryEscape(c.cfg.APIKey), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", c.userAgent)
	return req, nil
}

// Quota asks Bing how many URLs the site may still submit today and this month.
func (c *Channel) Quota(ctx context.Context) (daily, monthly int, err error) {
	u := c.cfg.Endpoint + "/GetUrlSubmissionQuota?siteUrl=" + url.QueryEscape(c.siteURL) + "&apikey=" + url.QueryEscape(c.cfg.APIKey)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("User-Agent", c.userAgent)
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, 0, withoutURL(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		a := c.judge(resp)
		if a.verdict == badKey {
			return 0, 0, fmt.Errorf("%s: %w", a.cause, ErrInvalidKey)
		}
		return 0, 0, errors.New(a.msg)
	}
	var q struct {
		D struct{ DailyQuota, MonthlyQuota int }
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&q); err != nil {
		return 0, 0, fmt.Errorf("the quota answer is not the expected JSON: %w", err)
	}
	return q.D.DailyQuota, q.D.MonthlyQuota, nil
}

// withoutURL drops the request URL from a transport error: it holds the API key.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("no answer: %w", ue.Err)
	}
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
