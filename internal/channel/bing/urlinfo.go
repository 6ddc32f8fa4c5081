package bing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
)

// infoTimeout bounds one GetUrlInfo call, its whole answer: a body that drips does not extend it.
const infoTimeout = 15 * time.Second

// URLInfo is what Bing's GetUrlInfo tells of a URL.
type URLInfo struct {
	// LastCrawled is when Bing last crawled the URL; zero when it never did.
	LastCrawled time.Time
	// HTTPStatus is the status Bing got at that crawl.
	HTTPStatus int
	// Discovered is when Bing first learnt of the URL; zero when it did not say.
	Discovered time.Time
}

// URLInfo asks Bing what it knows of u, waiting at most infoTimeout for the whole answer. The
// error wraps ErrInvalidKey when Bing refuses the key, and ErrNoAnswer when no answer came, or
// not all of it (the body broke off, or had not ended in time).
func (c *Channel) URLInfo(ctx context.Context, u string) (URLInfo, error) {
	ictx, cancel := context.WithTimeout(ctx, infoTimeout)
	defer cancel()
	q := c.cfg.Endpoint + "/GetUrlInfo?siteUrl=" + url.QueryEscape(c.siteURL) + "&url=" + url.QueryEscape(u) + "&apikey=" + url.QueryEscape(c.cfg.APIKey)
	req, err := http.NewRequestWithContext(ictx, http.MethodGet, q, nil)
	if err != nil {
		return URLInfo{}, err
	}
	req.Header.Set("User-Agent", c.userAgent)
	resp, err := c.client.Do(req)
	if err != nil {
		return URLInfo{}, noAnswer(ctx, ictx, err, infoTimeout, 0)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		a := c.judge(resp)
		switch {
		case a.broke != nil:
			return URLInfo{}, noAnswer(ctx, ictx, a.broke, infoTimeout, resp.StatusCode)
		case a.verdict == badKey:
			return URLInfo{}, fmt.Errorf("%s: %w", a.cause, ErrInvalidKey)
		}
		return URLInfo{}, errors.New(a.cause)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return URLInfo{}, noAnswer(ctx, ictx, err, infoTimeout, resp.StatusCode)
	}
	var answer struct {
		D *struct {
			HTTPStatus                     int `json:"HttpStatus"`
			DiscoveryDate, LastCrawledDate string
		}
	}
	if json.Unmarshal(body, &answer) != nil || answer.D == nil {
		return URLInfo{}, fmt.Errorf("the answer, HTTP 200 (%s), has no URL info", channel.Describe(resp.Header.Get("Content-Type"), body))
	}
	crawled, err := wcfDate(answer.D.LastCrawledDate)
	if err != nil {
		return URLInfo{}, fmt.Errorf("the answer's LastCrawledDate: %w", err)
	}
	discovered, err := wcfDate(answer.D.DiscoveryDate)
	if err != nil {
		return URLInfo{}, fmt.Errorf("the answer's DiscoveryDate: %w", err)
	}
	return URLInfo{LastCrawled: crawled, HTTPStatus: answer.D.HTTPStatus, Discovered: discovered}, nil
}

// wcfPattern is a date as WCF writes it in JSON: /Date(ms)/ or /Date(ms±hhmm)/.
var wcfPattern = regexp.MustCompile(`^/Date\((-?\d+)([+-]\d{4})?\)/$`)

// wcfDate reads a WCF date: its number is milliseconds since the epoch in UTC, and the offset only
// says where it was written — it does not move the instant. DateTime.MinValue
// (/Date(-62135596800000)/), or any time not after the epoch, is "never": the zero time. An empty
// or null date is never too.
func wcfDate(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	m := wcfPattern.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("%q is not a date as Bing writes them, /Date(milliseconds±hhmm)/", human.Clip(s, 40))
	}
	ms, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: %w", human.Clip(s, 40), err)
	}
	if ms <= 0 {
		return time.Time{}, nil
	}
	return time.UnixMilli(ms).UTC(), nil
}
