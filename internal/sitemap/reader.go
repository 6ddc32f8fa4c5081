package sitemap

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"net"
	"net/http"
	"time"
)

// Options configure a Reader. They mirror the `sitemap:` block of the configuration file.
type Options struct {
	// Client makes the HTTP requests; nil means a client with connection timeouts.
	Client *http.Client
	// UserAgent is sent with every request. It should name sitepush and a contact.
	UserAgent string
	// Timeout bounds one attempt at one sitemap, body included: the reader's own time, not the
	// time Read's fn takes (see attemptClock). It bounds one attempt at robots.txt too.
	Timeout time.Duration
	// Retries is how many more attempts a sitemap gets after a network error, a timeout or a
	// 408, 429 or 5xx answer, RetryInterval apart. Other errors are not retried.
	Retries       int
	RetryInterval time.Duration
	// MaxBytes caps one sitemap after decompression.
	MaxBytes int64
	// MaxDepth caps the nesting of sitemap indexes.
	MaxDepth int
	// Cache, when set, says what the caller knows of sitemaps read before: those unchanged are
	// not read again.
	Cache Cache
	// Done, when set, is called as the read of each sitemap ends, after its entries, with what
	// came of it (Err is nil when it was read whole).
	Done func(Sitemap)
	// Subtree, when set, is called as the read of an index and of every sitemap below it ends,
	// unless the read as a whole stopped first: below are the outcomes of those sitemaps (a
	// sitemap another index led to first is not among them), not to be kept.
	Subtree func(index Sitemap, below []Sitemap)
	// Repeats, when set, has every page entry delivered and counted as it is read, though an
	// earlier entry, sitemap or failed attempt gave its URL: for a caller that tells pages apart
	// on its own terms, sparing the reader its set of every URL's hash (8 to 16 bytes a URL).
	Repeats bool
	// Warn receives what was skipped or worked around; nil discards it.
	Warn func(Warning)
}

// Defaults are the limits of the configuration file's defaults.
func Defaults() Options {
	return Options{Timeout: 30 * time.Second, Retries: 3, RetryInterval: 2 * time.Second,
		MaxBytes: 50 << 20, MaxDepth: 5}
}

// Reader reads sitemaps. It is safe for concurrent use.
type Reader struct {
	opt    Options
	client *http.Client
}

// NewReader returns a Reader; zero limits in opt take the values of Defaults.
func NewReader(opt Options) *Reader {
	d := Defaults()
	if opt.Timeout <= 0 {
		opt.Timeout = d.Timeout
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = d.MaxBytes
	}
	if opt.MaxDepth <= 0 {
		opt.MaxDepth = d.MaxDepth
	}
	if opt.Warn == nil {
		opt.Warn = func(Warning) {}
	}
	client := opt.Client
	if client == nil {
		client = NewClient(4)
	}
	return &Reader{opt: opt, client: client}
}

// NewClient returns an HTTP client with the timeouts sitepush gives every connection — to sites
// and to engines alike — keeping up to idlePerHost idle connections per host. A request's own
// deadline comes from its context.
func NewClient(idlePerHost int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: idlePerHost,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}}
}

// Read reads the given sitemaps — URLs or local files; a site root or robots.txt URL means
// discovery through robots.txt — and calls fn once for every distinct page URL (every page
// entry with Options.Repeats), as it is read, following indexes. One sitemap failing does not stop the others: the Result tells which
// failed and why. Read returns an error only when fn does or ctx ends; the Result then covers
// what was read until then.
func (r *Reader) Read(ctx context.Context, sitemaps []string, fn func(Entry) error) (*Result, error) {
	w := &walk{r: r, ctx: ctx, fn: fn, seenMap: map[string]bool{}}
	w.pending.seed, w.pending.hash = maphash.MakeSeed(), !r.opt.Repeats
	w.client = w.newClient()
	var err error
	for _, s := range sitemaps {
		if err = w.root(s); err != nil {
			break
		}
	}
	// A copy: the walk, and the hashes of every URL it saw, are garbage once the read ends.
	res := w.res
	return &res, err
}

// stopError carries an error of the caller's fn, which ends the whole read.
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }
func (e stopError) Unwrap() error { return e.err }

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// fatal unwraps the errors that end a whole read.
func fatal(ctx context.Context, err error) error {
	var se stopError
	if errors.As(err, &se) {
		return se.err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("reading sitemaps: %w", ctx.Err())
	}
	return nil
}
