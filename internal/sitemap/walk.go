package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/cespare/xxhash/v2"

	"github.com/sitepush/sitepush/internal/human"
)

const (
	// warnLimit is how many warnings one sitemap may print before the rest are only counted.
	warnLimit = 20
	// urlsPerFile is the sitemaps.org limit of URLs in one file.
	urlsPerFile = 50_000
	// bytesPerURL is what a sitemap entry takes at least, give or take: enough to size the URL
	// set once from a file's length instead of growing it step by step.
	bytesPerURL = 200
)

// walk is the state of one Read: what was seen, and the result so far.
type walk struct {
	r   *Reader
	ctx context.Context
	fn  func(Entry) error

	// seenURL holds a 64-bit hash of each delivered URL — 8 to 16 bytes a URL instead of the
	// URL itself, so a million-URL site dedupes in ~16 MB. The hash is the runtime's own
	// (AES-based where the CPU has it), seeded afresh for every read: a collision, at odds of
	// ~3e-8 at a million URLs, would drop one URL from one run and not the same one next time.
	seenURL hashSet
	pending batch
	seenMap map[string]bool
	res     Result
	warned  map[int]int // warnings per sitemap index in res.Sitemaps

	// client makes the read's requests (see newClient); own names the sitemap being read and
	// where its redirects led; clock is the deadline of the attempt at it.
	client *http.Client
	own    []string
	clock  *attemptClock
}

func (w *walk) warn(idx int, msg string) {
	if w.warned == nil {
		w.warned = map[int]int{}
	}
	w.warned[idx]++
	if w.warned[idx] <= warnLimit {
		w.r.opt.Warn(Warning{Sitemap: w.res.Sitemaps[idx].URL, Message: msg})
	}
}

// root reads one sitemap given by the caller.
func (w *walk) root(src string) error {
	s, err := rootSource(src)
	if err != nil {
		w.res.Sitemaps = append(w.res.Sitemaps, Sitemap{URL: src, Err: err})
		return nil
	}
	if s.url != nil {
		if robots, ok := discoveryRoot(s.url); ok {
			return w.discover(robots)
		}
	}
	return w.visit(s, "", 0)
}

// visit reads one sitemap — listed in index, "" for a sitemap the read starts from — and, for an
// index, the sitemaps it lists, depth first.
func (w *walk) visit(s source, index string, depth int) error {
	name := s.name()
	if w.seenMap[name] {
		return nil
	}
	w.seenMap[name] = true
	idx := len(w.res.Sitemaps)
	w.res.Sitemaps = append(w.res.Sitemaps, Sitemap{URL: name, Index: index, Depth: depth})
	if depth > w.r.opt.MaxDepth {
		w.res.Sitemaps[idx].Err = fmt.Errorf("not read: indexes nest deeper than %d levels (sitemap.maxDepth)", w.r.opt.MaxDepth)
		return nil
	}
	children, err := w.readRetrying(s, idx)
	if w.r.opt.Done != nil {
		w.r.opt.Done(w.res.Sitemaps[idx])
	}
	if err != nil || w.skipRead(idx) {
		return err
	}
	if n := w.warned[idx]; n > warnLimit {
		w.r.opt.Warn(Warning{Sitemap: name, Message: fmt.Sprintf("%d more warnings not shown", n-warnLimit)})
	}
	for _, c := range children {
		if err := w.visit(c, name, depth+1); err != nil {
			return err
		}
	}
	if w.r.opt.Subtree != nil && w.res.Sitemaps[idx].Kind == KindIndex {
		w.r.opt.Subtree(w.res.Sitemaps[idx], w.res.Sitemaps[idx+1:])
	}
	return nil
}

// readRetrying reads a sitemap, trying again after transient failures. Entries delivered by a
// failed attempt are not delivered again: the URL set dedupes them (with Options.Repeats, they
// are, and the caller dedupes). It returns an error only
// when the whole read must stop; the sitemap's own failure is recorded in its Sitemap.
func (w *walk) readRetrying(s source, idx int) ([]source, error) {
	w.own = append(w.own[:0], s.name())
	for attempt := 0; ; attempt++ {
		if st := &w.res.Sitemaps[idx]; !w.pending.hash {
			// Repeats come again from the start: the last attempt's are counted.
			w.res.URLs -= st.Entries
			st.Entries = 0
		}
		children, err := w.readOnce(s, idx)
		if f := fatal(w.ctx, err); f != nil {
			w.res.Sitemaps[idx].Err = fmt.Errorf("not read to the end: %w", f)
			return nil, f
		}
		if err == nil || s.url == nil || !retryable(err) || attempt >= w.r.opt.Retries {
			w.res.Sitemaps[idx].Err = err
			return children, nil
		}
		w.warn(idx, fmt.Sprintf("%v; trying again in %s (%d of %d)", err, w.r.opt.RetryInterval, attempt+1, w.r.opt.Retries))
		if err := sleep(w.ctx, w.r.opt.RetryInterval); err != nil {
			f := fatal(w.ctx, err)
			w.res.Sitemaps[idx].Err = fmt.Errorf("not read to the end: %w", f)
			return nil, f
		}
	}
}

// readOnce makes one attempt at one sitemap, within sitemap.timeout of its own time (see
// attemptClock). Pages are delivered as they are parsed; the sitemaps an index lists are
// returned, to be read once this one is closed.
func (w *walk) readOnce(s source, idx int) ([]source, error) {
	ctx, cancel := context.WithCancelCause(w.ctx)
	defer cancel(nil)
	w.clock = startClock(w.r.opt.Timeout, cancel)
	children, err := w.attempt(ctx, s, idx)
	w.clock.stop()
	w.clock = nil
	var se stopError
	if err != nil && !errors.As(err, &se) && w.ctx.Err() == nil && context.Cause(ctx) == errTimedOut {
		// However the network or the parser met the end of the attempt, say what ended it.
		err = transientError{timeoutError(w.r.opt.Timeout)}
	}
	return children, err
}

// attempt reads a sitemap with ctx.
func (w *walk) attempt(ctx context.Context, s source, idx int) ([]source, error) {
	known := w.known(s)
	st := &w.res.Sitemaps[idx]
	st.Received, st.Length = 0, -1
	if known.Current {
		st.NotModified, st.Validators = true, known
		return nil, nil
	}
	resp, err := w.r.open(ctx, w.client, s, known)
	if err != nil {
		return nil, err
	}
	if resp.base != nil {
		w.arrived(resp.base)
	}
	defer resp.body.Close()
	st.Validators = Validators{ETag: resp.etag, LastModified: resp.lastMod, Size: resp.size, ModTime: resp.modTime}
	st.Length = resp.size
	if resp.notModified {
		st.NotModified, st.Validators = true, known
		return nil, nil
	}
	got := &counting{r: resp.body}
	defer func() { w.res.Sitemaps[idx].Received = got.n }()
	var in io.Reader = got
	if s.url != nil {
		in = transientReader{in, w.r.opt.Timeout}
	}
	if resp.size > 0 && w.pending.hash {
		w.seenURL.reserve(int(min(resp.size, w.r.opt.MaxBytes) / bytesPerURL))
	}
	text, isXML, err := body(in, w.r.opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	digest := xxhash.New()
	text = io.TeeReader(text, digest)
	d := &doc{w: w, src: s, idx: idx, base: resp.base}
	if isXML {
		err = d.xml(text)
	} else {
		w.res.Sitemaps[idx].Kind = KindText
		err = readText(text, d.line, d.skipLine)
	}
	if ferr := w.flush(idx); ferr != nil {
		return nil, ferr
	}
	if err != nil {
		return d.children, w.explain(err, resp)
	}
	// The same bytes as the Cache knew: the entries delivered are those it knows.
	st.Validators.Hash = digest.Sum64()
	st.NotModified = known.Hash == st.Validators.Hash && st.Kind != KindIndex
	return d.children, nil
}

// counting counts the bytes read through it.
type counting struct {
	r io.Reader
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// known returns what the cache remembers of a sitemap, if there is a cache.
func (w *walk) known(s source) Validators {
	if c := w.r.opt.Cache; c != nil {
		v, _ := c.Known(s.name())
		return v
	}
	return Validators{}
}

// explain adds to a not-a-sitemap error what the server said the body was.
func (w *walk) explain(err error, resp *response) error {
	if errors.Is(err, ErrNotSitemap) && resp.status != 0 {
		ct := human.Clip(resp.contentType, 80)
		if ct == "" {
			ct = "no Content-Type"
		}
		return fmt.Errorf("%w (HTTP %d, %s)", err, resp.status, ct)
	}
	if errors.Is(err, errTokenTooLong) {
		return fmt.Errorf("%w: %w", ErrNotSitemap, err)
	}
	return err
}

// discover finds a site's sitemaps through robots.txt, falling back to /sitemap.xml and then
// /sitemap_index.xml when robots.txt lists none.
func (w *walk) discover(robots *url.URL) error {
	list, err := w.robots(robots)
	if err != nil {
		return err
	}
	for _, u := range list {
		if err := w.visit(source{url: u}, "", 0); err != nil {
			return err
		}
	}
	if len(list) > 0 {
		return nil
	}
	for i, p := range []string{"/sitemap.xml", "/sitemap_index.xml"} {
		n := len(w.res.Sitemaps)
		if err := w.visit(source{url: robots.ResolveReference(&url.URL{Path: p})}, "", 0); err != nil {
			return err
		}
		if n < len(w.res.Sitemaps) && w.res.Sitemaps[n].Err == nil {
			if i > 0 && w.res.Sitemaps[n-1].Err != nil {
				// The first guess was only a guess: its 404 is not a failure of the site.
				w.res.Sitemaps = append(w.res.Sitemaps[:n-1], w.res.Sitemaps[n:]...)
			}
			return nil
		}
	}
	return nil
}

// robots reads robots.txt and returns the sitemaps it lists. A robots.txt that cannot be read
// lists none; it is not a sitemap, so it is reported through warnings only.
func (w *walk) robots(u *url.URL) ([]*url.URL, error) {
	warn := func(msg string) { w.r.opt.Warn(Warning{Sitemap: u.String(), Message: msg}) }
	names, err := w.readRobots(u)
	if err != nil {
		if f := fatal(w.ctx, err); f != nil {
			return nil, f
		}
		warn(fmt.Sprintf("not read (%v); looking for /sitemap.xml and /sitemap_index.xml", err))
		return nil, nil
	}
	if len(names) == 0 {
		warn("lists no Sitemap: lines; looking for /sitemap.xml and /sitemap_index.xml")
	}
	return names, nil
}

// readRobots downloads robots.txt, trying again after transient failures as a sitemap is tried,
// and returns the sitemaps it lists; the error is why it could not be read, or that ctx ended.
func (w *walk) readRobots(u *url.URL) ([]*url.URL, error) {
	w.own = append(w.own[:0], u.String())
	for attempt := 0; ; attempt++ {
		text, base, err := w.robotsOnce(u)
		if err == nil {
			return robotsSitemaps(text, base), nil
		}
		if fatal(w.ctx, err) != nil || !retryable(err) || attempt >= w.r.opt.Retries {
			return nil, err
		}
		if err := sleep(w.ctx, w.r.opt.RetryInterval); err != nil {
			return nil, err
		}
	}
}

// robotsOnce downloads robots.txt (its first maxRobotsBytes) within sitemap.timeout, and
// returns it with the URL it came from after redirects.
func (w *walk) robotsOnce(u *url.URL) ([]byte, *url.URL, error) {
	ctx, cancel := context.WithTimeout(w.ctx, w.r.opt.Timeout)
	defer cancel()
	resp, err := w.r.open(ctx, w.client, source{url: u}, Validators{})
	if err != nil {
		return nil, nil, err
	}
	defer resp.body.Close()
	text, err := io.ReadAll(io.LimitReader(transientReader{resp.body, w.r.opt.Timeout}, maxRobotsBytes))
	return text, resp.base, err
}
