package preflight

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

	"golang.org/x/net/html"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// page is what one fetch of a URL found: what every engine's verdict needs, not the page itself.
type page struct {
	shared

	status   int
	location string // a redirect's target, resolved
	noAnswer string // why no answer came, when none did
	// noindex holds where noindex was said, by the name it was said for: "" for every engine (the
	// robots meta tag, an X-Robots-Tag without a name), else a crawler's name ("bingbot").
	noindex   map[string]string
	canonical string // resolved

	// checked is set when the fetch was a content check's (Checker.ReadPage), which reads the
	// whole body — answered or not: one that got no answer is not made again in the run —
	// content is its fingerprint, or contentErr why there is none; notModified is set when it
	// answered 304 to its conditional GET, validators are its answer's.
	checked     bool
	content     uint64
	contentErr  error
	notModified bool
	validators  model.Validators
}

// pageOf returns the fetch of u, fetching it unless another channel of the run did; nil when
// ctx ended first.
func (c *Checker) pageOf(ctx context.Context, u string) *page {
	return fetchOnce(ctx, &c.mu, c.pages, u, func(p *page) {
		if c.expects(u) {
			c.fetch(ctx, u, p, &model.Validators{}) // read whole: the run reads its content after
			return
		}
		c.fetch(ctx, u, p, nil)
	})
}

// fetch GETs u without following a redirect, reads at most maxBody of an HTML answer and notes
// what a verdict needs into p — and, for a content check (v not nil), conditionally on v, reads
// the whole body for its fingerprint (readContent).
func (c *Checker) fetch(ctx context.Context, u string, p *page, v *model.Validators) {
	defer close(p.done)
	// A content check's fetch that gets no answer is its check, failed: not fetched again.
	p.checked = v != nil
	req, end, ok, err := c.begin(ctx, u)
	if !ok {
		return
	}
	defer end()
	if err != nil {
		p.ok, p.noAnswer = true, fmt.Sprintf("not a URL to fetch (%v)", err)
		return
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	if v != nil {
		conditional(req, *v)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		if ctx.Err() != nil || c.refused(err) {
			return // the run's end, or its last requests kept for the engines: not the page's fault
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %v", c.timeout)
		}
		p.ok, p.noAnswer = true, err.Error()
		return
	}
	defer resp.Body.Close()
	p.ok = true
	if v != nil {
		p.readContent(u, resp)
		return
	}
	p.read(u, resp, io.LimitReader(resp.Body, maxBody))
}

// read notes into p what a verdict needs of the answer to a GET of u: its status, where it
// redirects, the noindex of its headers and, when it is an HTML page, of body's head, and its
// canonical link.
func (p *page) read(u string, resp *http.Response, body io.Reader) {
	p.status = resp.StatusCode
	if loc := resp.Header.Get("Location"); loc != "" {
		p.location = resolve(u, loc)
	}
	p.noindex = map[string]string{}
	for _, v := range resp.Header.Values("X-Robots-Tag") {
		if name, noindex := robotsHeader(v); noindex {
			p.noindex[name] = "X-Robots-Tag: " + v
		}
	}
	if resp.StatusCode/100 == 2 && isHTML(resp.Header.Get("Content-Type")) {
		readHead(body, u, p)
	}
}

// Judge returns the verdict on u for e of an answer its caller fetched — a GET whose redirects
// were not followed — of which head is what was read of the body (its head, at least): the rule
// Check applies to its own fetches, for a channel that fetches a page for more than a verdict (the
// feed, for its title). robots.txt is not its to read: Checker.Robots.
func Judge(e Engine, u string, resp *http.Response, head []byte) channel.Preflight {
	p := &page{}
	p.read(u, resp, bytes.NewReader(head))
	return p.verdict(e, u)
}

// isHTML reports whether a Content-Type may be a page with robots meta tags; none is taken as
// one.
func isHTML(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return ct == "" || err != nil || mt == "text/html" || mt == "application/xhtml+xml"
}

// readHead reads the robots meta tags and the canonical link of a page, up to its body.
func readHead(r io.Reader, base string, p *page) {
	z := html.NewTokenizer(r)
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch tag := string(name); {
			case tag == "body":
				return
			case tag == "meta" && hasAttr:
				attrs := attributes(z)
				who := strings.ToLower(strings.TrimSpace(attrs["name"]))
				if who == "robots" {
					who = ""
				}
				if hasNoindex(attrs["content"]) {
					p.noindex[who] = fmt.Sprintf(`<meta name=%q content=%q>`, attrs["name"], attrs["content"])
				}
			case tag == "link" && hasAttr && p.canonical == "":
				attrs := attributes(z)
				if hasToken(attrs["rel"], "canonical") && strings.TrimSpace(attrs["href"]) != "" {
					p.canonical = resolve(base, strings.TrimSpace(attrs["href"]))
				}
			}
		}
	}
}

// attributes returns a tag's attributes by lower-case name, the first of each.
func attributes(z *html.Tokenizer) map[string]string {
	out := map[string]string{}
	for {
		k, v, more := z.TagAttr()
		if _, seen := out[string(k)]; !seen {
			out[string(k)] = string(v)
		}
		if !more {
			return out
		}
	}
}

// hasToken reports whether a space-separated list holds tok, ignoring case.
func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// hasNoindex reports whether a robots directive list says noindex ("none" says it too).
func hasNoindex(directives string) bool {
	for _, d := range strings.Split(directives, ",") {
		switch strings.ToLower(strings.TrimSpace(d)) {
		case "noindex", "none":
			return true
		}
	}
	return false
}

// robotsHeader reads one X-Robots-Tag value: whom it names ("" for every crawler, else a name
// before a colon: "bingbot: noindex") and whether it says noindex.
func robotsHeader(v string) (name string, noindex bool) {
	if before, after, found := strings.Cut(v, ":"); found {
		b := strings.TrimSpace(before)
		if !strings.ContainsAny(b, ", ") && !strings.EqualFold(b, "unavailable_after") {
			return strings.ToLower(b), hasNoindex(after)
		}
	}
	return "", hasNoindex(v)
}

// resolve makes ref absolute against base; ref as it is when either cannot be read.
func resolve(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

// verdict is what the fetch says of u for e.
func (p *page) verdict(e Engine, u string) channel.Preflight {
	switch {
	case p.noAnswer != "":
		return channel.Preflight{Reason: channel.NotStatus, Detail: "no answer: " + p.noAnswer, Again: true}
	case p.status/100 == 3 && p.status != http.StatusNotModified:
		target := p.location
		if target == "" {
			target = "nowhere (no Location)"
		}
		return channel.Preflight{Reason: channel.NotRedirect, Detail: fmt.Sprintf("HTTP %d to %s", p.status, target)}
	case p.status/100 != 2:
		again := p.status >= 500 || p.status == http.StatusTooManyRequests
		return channel.Preflight{Reason: channel.NotStatus, Detail: fmt.Sprintf("HTTP %d", p.status), Again: again}
	}
	if where, ok := p.noindex[""]; ok {
		return channel.Preflight{Reason: channel.NotNoindex, Detail: where}
	}
	if where, ok := p.noindex[e.Meta]; ok && e.Meta != "" {
		return channel.Preflight{Reason: channel.NotNoindex, Detail: where}
	}
	if p.canonical != "" && !sameURL(p.canonical, u) {
		return channel.Preflight{Reason: channel.NotCanonical, Detail: p.canonical}
	}
	return channel.Preflight{}
}

// sameURL reports whether two absolute URLs name the same page: equal but for the case of the
// scheme and host, and any fragment.
func sameURL(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	ua.Fragment, ub.Fragment, ua.RawFragment, ub.RawFragment = "", "", "", ""
	ua.Scheme, ub.Scheme = strings.ToLower(ua.Scheme), strings.ToLower(ub.Scheme)
	ua.Host, ub.Host = strings.ToLower(ua.Host), strings.ToLower(ub.Host)
	return ua.String() == ub.String()
}
