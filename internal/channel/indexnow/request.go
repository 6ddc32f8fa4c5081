package indexnow

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/sitepush/sitepush/internal/channel"
)

// submission is what one request carries: the JSON body of a POST, or the query of a GET.
type submission struct {
	body  []byte // POST
	query string // GET
	n     int    // URLs in it
}

// postBody is the JSON an IndexNow POST carries.
type postBody struct {
	Host        string   `json:"host"`
	Key         string   `json:"key"`
	KeyLocation string   `json:"keyLocation"`
	URLList     []string `json:"urlList"`
}

func (c *Channel) submission(urls []channel.Due) (submission, error) {
	if c.cfg.Method == "get" {
		q := "url=" + encodeURIComponent(urls[0].URL) + "&key=" + encodeURIComponent(c.cfg.Key) +
			"&keyLocation=" + encodeURIComponent(c.cfg.KeyLocation)
		return submission{query: q, n: 1}, nil
	}
	list := make([]string, len(urls))
	for i, u := range urls {
		list[i] = u.URL
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// URLs keep their '&', '<' and '>' as they are: HTML escaping would only bloat the body.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(postBody{Host: c.host, Key: c.cfg.Key, KeyLocation: c.cfg.KeyLocation, URLList: list}); err != nil {
		return submission{}, err
	}
	return submission{body: buf.Bytes(), n: len(urls)}, nil
}

// request builds the HTTP request of a submission to endpoint.
func (c *Channel) request(ctx context.Context, endpoint string, s submission) (*http.Request, error) {
	if s.body == nil {
		sep := "?"
		if strings.Contains(endpoint, "?") {
			sep = "&"
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+sep+s.query, nil)
		if err == nil {
			req.Header.Set("User-Agent", c.userAgent)
		}
		return req, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(s.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", c.userAgent)
	return req, nil
}

// encodeURIComponent percent-encodes s as JavaScript's encodeURIComponent does, as the IndexNow
// documentation's examples are: everything but A–Z a–z 0–9 - _ . ! ~ * ' ( ).
func encodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) * 3 / 2)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
