package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/human"
)

// Cache is what a reader's caller remembers of the sitemaps of page URLs it read before — the
// Validators each Sitemap of a Result carries — so that an unchanged one is neither downloaded
// again (a 304 to a conditional GET, a local file of the same size and modification time) nor
// parsed (the same bytes once decompressed). Such a sitemap is reported NotModified and delivers
// no entries: the caller knows them. An index has no use for it: its children must be visited.
type Cache interface {
	// Known returns what is remembered of a sitemap, by the name Sitemap.URL gives it.
	Known(sitemap string) (Validators, bool)
}

// Validators identify a sitemap's content between reads.
type Validators struct {
	ETag, LastModified string // the server's answer headers, for a conditional GET
	Size, ModTime      int64  // a local file's size and modification time (Unix ns)
	Hash               uint64 // xxHash64 of the bytes after decompression; 0 when not read
	// Current, from a Cache, says that the caller read the sitemap whole so recently that it is
	// not asked for at all: it is reported NotModified, with these validators.
	Current bool
}

// sameFile reports whether a local file's size and modification time are those remembered.
func (v Validators) sameFile(fi os.FileInfo) bool {
	return v.ModTime != 0 && v.Size == fi.Size() && v.ModTime == fi.ModTime().UnixNano()
}

// source is one sitemap to read: an http(s) URL or a local file.
type source struct {
	url  *url.URL // nil for a local file
	path string   // the local file
}

// name is how the source is reported and remembered.
func (s source) name() string {
	if s.url != nil {
		return s.url.String()
	}
	return s.path
}

// rootSource interprets a sitemap given by the user: an http(s) URL, a file:// URL or a path.
func rootSource(s string) (source, error) {
	switch {
	case httpPrefix([]byte(s)) > 0:
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return source{}, fmt.Errorf("%q is not a valid URL", s)
		}
		u.Fragment = ""
		return source{url: u}, nil
	case strings.HasPrefix(s, "file://"):
		return source{path: filepath.Clean(strings.TrimPrefix(s, "file://"))}, nil
	case strings.Contains(s, "://"):
		return source{}, fmt.Errorf("%q: only http(s) URLs and local files can be read", s)
	}
	return source{path: filepath.Clean(s)}, nil
}

// childSource resolves a sitemap listed in an index. A remote index may only point to http(s)
// URLs — never to files on this machine; a local index may also point to files beside it.
func childSource(parent source, loc []byte) (source, string, error) {
	if parent.url == nil && httpPrefix(loc) == 0 {
		p := string(loc)
		if strings.HasPrefix(p, "file://") {
			p = strings.TrimPrefix(p, "file://")
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(parent.path), p)
		}
		return source{path: filepath.Clean(p)}, "", nil
	}
	u, note, skip := pageURL(loc, parent.url)
	if skip != "" {
		return source{}, "", errors.New(strings.Replace(skip, "skipped", "skipped sitemap", 1))
	}
	pu, err := url.Parse(string(u))
	if err != nil {
		return source{}, "", fmt.Errorf("skipped sitemap %q: %v", human.Clip(string(loc), 200), err)
	}
	pu.Fragment = ""
	return source{url: pu}, note, nil
}

// response is an opened sitemap.
type response struct {
	body          io.ReadCloser
	size          int64    // of the body as sent, -1 when unknown
	base          *url.URL // the final URL after redirects, for resolving relative locs
	status        int
	contentType   string
	etag, lastMod string
	modTime       int64 // a local file's, Unix ns
	notModified   bool
}

// HTTPError is an answer other than success from a sitemap's server. It never holds the body:
// a sitemap may point at an internal service, whose answer must not reach logs and run records.
type HTTPError struct {
	Status      int
	ContentType string
	Size        int64 // of the body, -1 when unknown
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	var about []string
	if e.ContentType != "" {
		about = append(about, human.Clip(e.ContentType, 80))
	}
	if e.Size >= 0 {
		about = append(about, fmt.Sprintf("%d bytes", e.Size))
	}
	if len(about) > 0 {
		msg += " (" + strings.Join(about, ", ") + ")"
	}
	return msg
}

// temporary reports whether trying again later may succeed.
func (e *HTTPError) temporary() bool {
	return e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooEarly ||
		e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// transientError marks a failure of the network or the server, worth a retry.
type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }

// transientReader marks errors reading a response body as transient: a connection that drops
// mid-file is worth another try.
type transientReader struct {
	r       io.Reader
	timeout time.Duration
}

func (t transientReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		err = transientError{netError(err, t.timeout)}
	}
	return n, err
}

func retryable(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.temporary()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	var te transientError
	return errors.As(err, &te)
}

const acceptHeader = "application/xml, text/xml;q=0.9, application/rss+xml;q=0.9, application/atom+xml;q=0.9, text/plain;q=0.8, */*;q=0.5"

// open starts reading a sitemap with client. known is what the Cache knows of it: a local file
// the same as then is not read, a server is asked with a conditional GET.
func (r *Reader) open(ctx context.Context, client *http.Client, s source, known Validators) (*response, error) {
	if s.url == nil {
		if fi, err := os.Stat(s.path); err == nil && known.sameFile(fi) {
			return &response{body: io.NopCloser(strings.NewReader("")), size: fi.Size(), modTime: fi.ModTime().UnixNano(), notModified: true}, nil
		}
		f, err := os.Open(s.path)
		if err != nil {
			return nil, localError(err)
		}
		out := &response{body: f, size: -1}
		if fi, err := f.Stat(); err == nil {
			out.size, out.modTime = fi.Size(), fi.ModTime().UnixNano()
		}
		return out, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", r.opt.UserAgent)
	req.Header.Set("Accept", acceptHeader)
	if known.ETag != "" {
		req.Header.Set("If-None-Match", known.ETag)
	}
	if known.LastModified != "" {
		req.Header.Set("If-Modified-Since", known.LastModified)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, doError(err, r.opt.Timeout)
	}
	out := &response{body: resp.Body, size: resp.ContentLength, base: resp.Request.URL, status: resp.StatusCode,
		contentType: resp.Header.Get("Content-Type"), etag: resp.Header.Get("ETag"),
		lastMod: resp.Header.Get("Last-Modified")}
	switch {
	case resp.StatusCode == http.StatusNotModified && (known.ETag != "" || known.LastModified != ""):
		out.notModified = true
		return out, nil
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return out, nil
	}
	// A short error body is read, unseen, so that the connection can be used again, and to
	// learn its size when the server did not say.
	n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody+1))
	resp.Body.Close()
	size := resp.ContentLength
	if size < 0 && n <= maxErrorBody {
		size = n
	}
	return nil, &HTTPError{Status: resp.StatusCode, ContentType: out.contentType, Size: size}
}

// maxErrorBody is how much of an error answer is read, and dropped.
const maxErrorBody = 4 << 10

// doError classifies a failed request: a redirect that was not followed, as its policy says;
// anything else is the network's, worth a retry.
func doError(err error, timeout time.Duration) error {
	var ar alreadyRead
	if errors.As(err, &ar) {
		return ar
	}
	var re redirectError
	if errors.As(err, &re) {
		return re
	}
	return transientError{netError(err, timeout)}
}

// localError explains a file that cannot be opened.
func localError(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("no such file %s (a sitemap is an http(s) URL or a local file path)", pe.Path)
		}
	}
	return err
}

// netError rewords the failures people meet most; timeout is the limit that applied.
func netError(err error, timeout time.Duration) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return timeoutError(timeout)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the server closed the connection before the whole answer arrived: %w", err)
	}
	return err
}
