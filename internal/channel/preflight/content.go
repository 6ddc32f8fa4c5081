package preflight

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/fingerprint"
	"github.com/sitepush/sitepush/internal/model"
)

// ReadPage reads u for a run's content check (channel.PageReader, docs/runs.md "What changed"):
// one fetch a page a run, shared with the preflight — the same client, user agent, parallel
// slots and redirects not followed; its head gives the verdicts the channels ask for after
// (Check), its whole body, at most fingerprint.MaxBytes, the fingerprint. With validators the
// GET is conditional: a 304 is an unchanged page, whose verdicts a preflight fetches again.
func (c *Checker) ReadPage(ctx context.Context, u string, v model.Validators) (model.PageRead, error) {
	p := fetchOnce(ctx, &c.mu, c.pages, u, func(p *page) { c.fetch(ctx, u, p, &v) })
	if p != nil && !p.checked {
		p = c.fetchAlone(ctx, u, v) // fetched before for a preflight: its head only
	}
	switch {
	case p == nil && c.Spent():
		return model.PageRead{}, channel.ErrNoFetch
	case p == nil:
		return model.PageRead{}, fmt.Errorf("not read: %w", context.Cause(ctx))
	case p.notModified:
		c.forget(u, p)
		return model.PageRead{NotModified: true, Validators: p.validators}, nil
	case p.noAnswer != "":
		return model.PageRead{}, fmt.Errorf("no answer: %s", p.noAnswer)
	case p.contentErr != nil:
		return model.PageRead{}, p.contentErr
	}
	return model.PageRead{Content: p.content, Validators: p.validators}, nil
}

// Expect tells the Checker that the run will read the content of urls (ReadPage) after its
// channels preflighted them (channel.PageExpecter): a preflight's fetch of one reads on past its
// head, for the fingerprint, so that the page is fetched once.
func (c *Checker) Expect(urls []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range urls {
		c.expected[u] = true
	}
}

// expects reports whether the run will read u's content (Expect).
func (c *Checker) expects(u string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.expected[u]
}

// fetchAlone fetches u for a content check on its own, not shared; nil when ctx ended first.
func (c *Checker) fetchAlone(ctx context.Context, u string, v model.Validators) *page {
	p := &page{shared: shared{done: make(chan struct{})}}
	c.fetch(ctx, u, p, &v)
	if !p.ok {
		return nil
	}
	return p
}

// forget drops a fetch that answered 304 from those the preflight shares: it has no head to
// judge.
func (c *Checker) forget(u string, p *page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pages[u] == p {
		delete(c.pages, u)
	}
}

// conditional makes req conditional on the validators of the page's last answer.
func conditional(req *http.Request, v model.Validators) {
	if v.ETag != "" {
		req.Header.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		req.Header.Set("If-Modified-Since", v.LastModified)
	}
}

// readContent notes into p what a content check's GET of u answered: 304, unchanged; a 2xx, its
// fingerprint, of its whole body, and what a verdict needs of its head, read as it streams by
// (at most maxBody kept of it); anything else, the verdict's reading and why there is no content.
func (p *page) readContent(u string, resp *http.Response) {
	p.validators = model.Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		p.notModified = true
		return
	case resp.StatusCode/100 != 2:
		p.read(u, resp, io.LimitReader(resp.Body, maxBody))
		p.contentErr = fmt.Errorf("HTTP %d", resp.StatusCode)
		if p.location != "" {
			p.contentErr = fmt.Errorf("HTTP %d, redirected to %s", resp.StatusCode, p.location)
		}
		return
	}
	head := &headBuffer{max: maxBody}
	p.content, p.contentErr = fingerprint.Of(io.TeeReader(resp.Body, head), resp.Header.Get("Content-Type"))
	p.read(u, resp, bytes.NewReader(head.b))
}

// headBuffer keeps the first max bytes written to it — a page's head, for its verdict — and
// takes the rest without keeping it.
type headBuffer struct {
	b   []byte
	max int
}

func (h *headBuffer) Write(b []byte) (int, error) {
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, b[:min(room, len(b))]...)
	}
	return len(b), nil
}
