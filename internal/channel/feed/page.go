package feed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/preflight"
)

const (
	// maxHead bounds what is read of a page to find its title: the head, in practice far less.
	maxHead = 512 << 10
	// Titles and descriptions are cut to these many characters: a feed reader shows a line.
	maxTitle       = 300
	maxDescription = 1000
)

// page is what a page says of itself.
type page struct {
	title, description string
}

// errNoTitle marks a page that answered, for good, without a title to read (HTTP 404, an empty
// page): asking again would not help.
var errNoTitle = errors.New("no title")

// fetcher reads pages' titles with the politeness of the sitemap reader — its User-Agent, timeout
// and retries — and judges each by the preflight's rule for every engine, its client following
// no redirect.
type fetcher struct {
	client        *http.Client
	userAgent     string
	timeout       time.Duration
	retries       int
	retryInterval time.Duration
}

// fetch reads a page's title and description, trying again after transient failures. An error
// wrapping errNoTitle is final, and so is a *heldBack: no engine would index the page; any other
// may go away.
func (f *fetcher) fetch(ctx context.Context, u string) (page, error) {
	for attempt := 0; ; attempt++ {
		p, err := f.once(ctx, u)
		var held *heldBack
		if err == nil || errors.Is(err, errNoTitle) || errors.As(err, &held) || attempt >= f.retries {
			return p, err
		}
		if channel.Sleep(ctx, f.retryInterval) != nil {
			return p, err
		}
	}
}

// once makes one attempt. A final answer is judged (preflight.Judge) before its title is read:
// one no engine would index is held, whatever it holds.
func (f *fetcher) once(ctx context.Context, u string) (page, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return page{}, fmt.Errorf("%w: %v", errNoTitle, err)
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return page{}, err
	}
	defer resp.Body.Close()
	switch code := resp.StatusCode; {
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		return page{}, fmt.Errorf("HTTP %d %s", code, http.StatusText(code))
	case code != http.StatusOK:
		if held := judge(u, resp, nil); held != nil {
			return page{}, held
		}
		return page{}, fmt.Errorf("%w: HTTP %d %s", errNoTitle, code, http.StatusText(code))
	}
	ct := resp.Header.Get("Content-Type")
	if ct != "" && !strings.Contains(ct, "html") {
		// The media type alone, and only a sane one: a page's header is no place to read text
		// from into a run's record.
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || len(mt) > 80 {
			mt = "of an unreadable Content-Type"
		}
		if held := judge(u, resp, nil); held != nil {
			return page{}, held
		}
		return page{}, fmt.Errorf("%w: the page is %s, not HTML", errNoTitle, mt)
	}
	head, err := readUntilBody(resp.Body)
	if err != nil {
		return page{}, fmt.Errorf("reading the page: %w", err)
	}
	if held := judge(u, resp, head); held != nil {
		return page{}, held
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return page{}, fmt.Errorf("%w: the page is empty", errNoTitle)
	}
	text, err := encodingOf(head, ct).NewDecoder().Bytes(head)
	if err != nil {
		return page{}, fmt.Errorf("%w: the page's text cannot be decoded: %v", errNoTitle, err)
	}
	return readHead(bytes.NewReader(text)), nil
}

// heldBack is the error of a page no engine would index: the preflight's verdict on it.
type heldBack struct{ verdict channel.Preflight }

func (h *heldBack) Error() string { return h.verdict.Reason + ": " + h.verdict.Detail }

// judge returns why no engine would index the page of u that answered resp, head read of it:
// the preflight's rule (preflight.Judge); nil when one would.
func judge(u string, resp *http.Response, head []byte) *heldBack {
	if v := preflight.Judge(preflight.Feed, u, resp, head); v.Reason != "" {
		return &heldBack{v}
	}
	return nil
}

// readUntilBody reads a page up to its body (where the head has certainly ended), at most
// maxHead bytes.
func readUntilBody(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	chunk := make([]byte, 16<<10)
	for buf.Len() < maxHead {
		n, err := r.Read(chunk[:min(len(chunk), maxHead-buf.Len())])
		from := max(0, buf.Len()-len("</head")) // a tag cut between two reads
		buf.Write(chunk[:n])
		if endOfHead(buf.Bytes()[from:]) || err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// endOfHead reports whether b holds "</head" or "<body", in any case.
func endOfHead(b []byte) bool {
	lower := bytes.ToLower(b)
	return bytes.Contains(lower, []byte("</head")) || bytes.Contains(lower, []byte("<body"))
}

// encodingOf finds a page's encoding: a byte-order mark or the Content-Type header's charset;
// else a <meta> charset anywhere in the head (pages often declare it past the 1024 bytes the HTML
// standard looks at); else UTF-8 when the bytes are valid UTF-8; else the standard's guess.
func encodingOf(head []byte, contentType string) encoding.Encoding {
	e, _, certain := charset.DetermineEncoding(head, contentType)
	if certain {
		return e
	}
	if label := metaCharset(head); label != "" {
		if declared, _ := charset.Lookup(label); declared != nil {
			return declared
		}
	}
	if utf8.Valid(head) {
		return unicode.UTF8
	}
	return e
}

// metaCharset returns the charset a <meta> tag of the head declares, if any.
func metaCharset(head []byte) string {
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			attrs := map[string]string{}
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				attrs[string(k)] = string(v)
			}
			if c := attrs["charset"]; c != "" {
				return c
			}
			if strings.EqualFold(attrs["http-equiv"], "content-type") {
				if _, params, err := mime.ParseMediaType(attrs["content"]); err == nil && params["charset"] != "" {
					return params["charset"]
				}
			}
		}
	}
}

// inHead lists the elements a head may hold; any other start tag means the body has begun, even
// when the page never says <body> (an <svg><title> is no page title).
var inHead = map[string]bool{"html": true, "head": true, "title": true, "meta": true, "link": true, "style": true,
	"script": true, "noscript": true, "base": true, "template": true}

// readHead reads <title>, og:title, and the meta and og descriptions, stopping where the head ends.
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
			switch {
			case !inHead[string(name)]:
				return finish(title.String(), ogTitle.String(), desc.String(), ogDesc.String())
			case string(name) == "title":
				inTitle = title.Len() == 0
			case string(name) == "meta" && hasAttr:
				meta(z, &ogTitle, &desc, &ogDesc)
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
	p := page{title: clean(ogTitle, maxTitle), description: clean(desc, maxDescription)}
	if p.title == "" {
		p.title = clean(title, maxTitle)
	}
	if p.description == "" {
		p.description = clean(ogDesc, maxDescription)
	}
	return p
}

// clean collapses whitespace, as a browser shows a title, and cuts what is longer than max
// characters, with an ellipsis.
func clean(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut := []rune(s)[:max-1]
	return strings.TrimSpace(string(cut)) + "…"
}
