package feed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// maxHead bounds what is read of a page to find its title: the head, in practice far less.
const maxHead = 512 << 10

// page is what a page says of itself.
type page struct {
	title, description string
}

// fetcher reads pages' titles with the politeness of the sitemap reader: its User-Agent, timeout
// and retries.
type fetcher struct {
	client        *http.Client
	userAgent     string
	timeout       time.Duration
	retries       int
	retryInterval time.Duration
}

// fetch reads a page's title and description, trying again after transient failures.
func (f *fetcher) fetch(ctx context.Context, u string) (page, error) {
	for attempt := 0; ; attempt++ {
		p, err, transient := f.once(ctx, u)
		if err == nil || !transient || attempt >= f.retries {
			return p, err
		}
		t := time.NewTimer(f.retryInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return p, err
		case <-t.C:
		}
	}
}

// once makes one attempt; transient says whether another may do better.
func (f *fetcher) once(ctx context.Context, u string) (page, error, bool) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return page{}, err, false
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return page{}, err, true
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		code := resp.StatusCode
		return page{}, fmt.Errorf("HTTP %d %s", code, http.StatusText(code)), code >= 500 || code == http.StatusTooManyRequests
	}
	ct := resp.Header.Get("Content-Type")
	if ct != "" && !strings.Contains(ct, "html") {
		return page{}, nil, false // a PDF, an image: no title to read, and no error
	}
	r, err := charset.NewReader(io.LimitReader(resp.Body, maxHead), ct)
	if err != nil {
		return page{}, fmt.Errorf("the page's charset: %w", err), false
	}
	return readHead(r), nil, false
}

// readHead reads <title>, og:title, and the meta and og descriptions, stopping at </head>.
// og:title wins over <title>, which often ends with the site's name.
func readHead(r io.Reader) page {
	z := html.NewTokenizer(r)
	var title, ogTitle, desc, ogDesc strings.Builder
	inTitle := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return finish(title.String(), ogTitle.String(), desc.String(), ogDesc.String())
		case html.TextToken:
			if inTitle {
				title.Write(z.Text())
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "title":
				inTitle = false
			case "head":
				return finish(title.String(), ogTitle.String(), desc.String(), ogDesc.String())
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "title":
				inTitle = title.Len() == 0
			case "body":
				return finish(title.String(), ogTitle.String(), desc.String(), ogDesc.String())
			case "meta":
				if hasAttr {
					meta(z, &ogTitle, &desc, &ogDesc)
				}
			}
		}
	}
}

// meta takes what a <meta> tag says, if it is one of those read.
func meta(z *html.Tokenizer, ogTitle, desc, ogDesc *strings.Builder) {
	var key, content string
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "name", "property":
			key = strings.ToLower(string(v))
		case "content":
			content = string(v)
		}
		if !more {
			break
		}
	}
	var target *strings.Builder
	switch key {
	case "og:title":
		target = ogTitle
	case "description":
		target = desc
	case "og:description":
		target = ogDesc
	}
	if target != nil && target.Len() == 0 {
		target.WriteString(content)
	}
}

func finish(title, ogTitle, desc, ogDesc string) page {
	p := page{title: clean(ogTitle), description: clean(desc)}
	if p.title == "" {
		p.title = clean(title)
	}
	if p.description == "" {
		p.description = clean(ogDesc)
	}
	return p
}

// clean collapses whitespace, as a browser shows a title.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }
