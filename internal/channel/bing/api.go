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
	"time"

	"github.com/sitepush/sitepush/internal/channel"
)

// quotaTimeout bounds the quota call, its whole answer: a Bing that does not answer it in full
// this soon is taken as out of reach for the run.
const quotaTimeout = 15 * time.Second

// ErrInvalidKey means Bing rejected the API key: nothing more can be sent for the site.
var ErrInvalidKey = errors.New("the API key was rejected: check bing.apiKey (copy it again from Bing Webmaster Tools, Settings, API access)")

// ErrQuotaUnknown means Bing answered the quota call with HTTP 200 without telling the quota
// ({"d":null}): it took the key, and the quota left is unknown, not 0.
var ErrQuotaUnknown = errors.New("the quota left today is unknown")

// ErrNoAnswer means Bing gave no HTTP answer, or not all of it: the connection failed, or the
// answer had not come in full in time.
var ErrNoAnswer = errors.New("no answer from Bing")

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

// Quota asks Bing how many URLs the site may still submit today and this month, waiting at most
// quotaTimeout for the whole answer. The error wraps ErrInvalidKey when Bing refuses the key, and
// ErrNoAnswer when no answer came, or not all of it; any other means that Bing answered without telling the quota (a 5xx, an answer
// without DailyQuota such as {"d":null}): the quota left is unknown, not 0.
func (c *Channel) Quota(ctx context.Context) (daily, monthly int, err error) {
	qctx, cancel := context.WithTimeout(ctx, quotaTimeout)
	defer cancel()
	u := c.cfg.Endpoint + "/GetUrlSubmissionQuota?siteUrl=" + url.QueryEscape(c.siteURL) + "&apikey=" + url.QueryEscape(c.cfg.APIKey)
	req, err := http.NewRequestWithContext(qctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("User-Agent", c.userAgent)
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, 0, noAnswer(ctx, qctx, err, quotaTimeout, 0)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		a := c.judge(resp)
		switch {
		case a.broke != nil:
			return 0, 0, noAnswer(ctx, qctx, a.broke, quotaTimeout, resp.StatusCode)
		case a.verdict == badKey:
			return 0, 0, fmt.Errorf("%s: %w", a.cause, ErrInvalidKey)
		}
		return 0, 0, errors.New(a.cause)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return 0, 0, noAnswer(ctx, qctx, err, quotaTimeout, resp.StatusCode)
	}
	var q struct {
		D *struct{ DailyQuota, MonthlyQuota *int }
	}
	if json.Unmarshal(body, &q) != nil || q.D == nil || q.D.DailyQuota == nil {
		return 0, 0, fmt.Errorf("%w: the answer, HTTP 200 (%s), has no DailyQuota", ErrQuotaUnknown, channel.Describe(resp.Header.Get("Content-Type"), body))
	}
	if q.D.MonthlyQuota != nil {
		monthly = *q.D.MonthlyQuota
	}
	return max(0, *q.D.DailyQuota), max(0, monthly), nil
}

// noAnswer is the ErrNoAnswer of a call made within cctx, bounded by timeout, under the run's ctx:
// err is why no answer came, or, when status is not 0, why the body of the answer begun with that
// HTTP status did not come in full. A call ended by the run's own end is dropped by the caller.
func noAnswer(ctx, cctx context.Context, err error, timeout time.Duration, status int) error {
	timedOut := ctx.Err() == nil && cctx.Err() != nil
	switch {
	case status == 0 && timedOut:
		return fmt.Errorf("%w within %v", ErrNoAnswer, timeout)
	case status == 0:
		return fmt.Errorf("%w (%v)", ErrNoAnswer, withoutURL(err))
	case timedOut:
		return fmt.Errorf("%w within %v: the answer began (HTTP %d) and had not ended", ErrNoAnswer, timeout, status)
	}
	return fmt.Errorf("%w: the answer began (HTTP %d) and broke off (%v)", ErrNoAnswer, status, withoutURL(err))
}

// withoutURL drops the request URL from a transport error: it holds the API key.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
