package sitemap

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/sitepush/sitepush/internal/human"
)

// maxRedirects is how many redirects one request follows, as net/http does by default.
const maxRedirects = 10

// alreadyRead is a redirect to a sitemap this read has already downloaded: the sitemap that
// redirects is skipped, not read twice, and is no failure.
type alreadyRead struct{ target string }

func (e alreadyRead) Error() string {
	return "redirects to " + e.target + ", which was already read; not read again"
}

// redirectError is a redirect that was not followed. Trying again would only meet it again.
type redirectError struct{ err error }

func (e redirectError) Error() string { return e.err.Error() }
func (e redirectError) Unwrap() error { return e.err }

// newClient returns the read's own copy of the Reader's client, sharing its Transport and so its
// connections, whose redirect policy knows what the read has downloaded: the seen set is keyed
// by the URLs sitemaps are listed under, and a redirect must be checked against it too.
func (w *walk) newClient() *http.Client {
	c := *w.r.client
	inner := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		switch {
		case inner != nil:
			if err := inner(req, via); err != nil {
				return redirectError{err}
			}
		case len(via) >= maxRedirects:
			return redirectError{fmt.Errorf("stopped after %d redirects, at %s", maxRedirects, human.Clip(req.URL.String(), 200))}
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return redirectError{fmt.Errorf("redirects to %s, not an http(s) URL", human.Clip(req.URL.String(), 200))}
		}
		if t := sourceName(req.URL); w.seenMap[t] && !w.reading(t) {
			return alreadyRead{t}
		}
		return nil
	}
	return &c
}

// reading reports whether name is the sitemap being read or a URL it redirected to: a redirect
// back to it is a loop, for the redirect limit to end, and a retry may meet the same redirect.
func (w *walk) reading(name string) bool {
	for _, n := range w.own {
		if n == name {
			return true
		}
	}
	return false
}

// arrived records the URL a sitemap's download ended at, after redirects, as read.
func (w *walk) arrived(u *url.URL) {
	if t := sourceName(u); !w.reading(t) {
		w.seenMap[t] = true
		w.own = append(w.own, t)
	}
}

// skipRead drops the record of a sitemap that turned out to redirect to one already read, and
// says so. It reports whether that was the case.
func (w *walk) skipRead(idx int) bool {
	var ar alreadyRead
	st := &w.res.Sitemaps[idx]
	if !errors.As(st.Err, &ar) {
		return false
	}
	w.r.opt.Warn(Warning{Sitemap: st.URL, Message: ar.Error()})
	st.Err = nil
	if st.Entries == 0 && idx == len(w.res.Sitemaps)-1 {
		w.res.Sitemaps = w.res.Sitemaps[:idx]
		delete(w.warned, idx)
	}
	return true
}

// sourceName is how a remote sitemap at u is named and remembered.
func sourceName(u *url.URL) string {
	if u.Fragment == "" {
		return u.String()
	}
	c := *u
	c.Fragment = ""
	return c.String()
}
