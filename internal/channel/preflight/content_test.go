package preflight

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/fingerprint"
	"github.com/sitepush/sitepush/internal/model"
)

// strictSite is a site that answers conditional GETs as a server should — 304, without a body,
// when If-None-Match names its ETag — and keeps the headers of every request it got.
type strictSite struct {
	*site
	mu   sync.Mutex
	reqs map[string][]http.Header
}

const (
	etag         = `"v1"`
	lastModified = "Sun, 29 Nov 2026 08:00:00 GMT"
	noindexPage  = `<!doctype html><html><head><title>Draft</title><meta name="robots" content="noindex"></head><body><main>A draft</main></body></html>`
)

func newStrictSite(t *testing.T, pages map[string]func(w http.ResponseWriter)) *strictSite {
	s := &strictSite{site: newSite(t, pages), reqs: map[string][]http.Header{}}
	next := s.Config.Handler
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs[r.URL.Path] = append(s.reqs[r.URL.Path], r.Header.Clone())
		s.mu.Unlock()
		if r.URL.Path == "/etag" {
			w.Header().Set("ETag", etag)
			w.Header().Set("Last-Modified", lastModified)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
	return s
}

// gets returns the requests made for path.
func (s *strictSite) gets(path string) []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[path]
}

// TestReadPageSharesItsFetch: a content check's GET is conditional on the validators given and
// sent as the userAgent; a 304 is NotModified, and a preflight after it fetches the page again
// (a 304 has no head to judge); a 200 gives the content and is the preflight's too, judged from
// its head; a preflight's fetch before has no content, and a content check fetches again.
func TestReadPageSharesItsFetch(t *testing.T) {
	s := newStrictSite(t, map[string]func(http.ResponseWriter){
		"/draft": func(w http.ResponseWriter) { w.Write([]byte(noindexPage)) },
	})
	ctx := context.Background()
	c := New(s.Client(), "sitepush-test/1")
	v := model.Validators{ETag: etag, LastModified: lastModified}
	read, err := c.ReadPage(ctx, s.URL+"/etag", v)
	if err != nil || !read.NotModified || read.Content != 0 || read.Validators != v {
		t.Fatalf("a 304: %+v, %v; want NotModified with the answer's validators and no content", read, err)
	}
	h := s.gets("/etag")
	if len(h) != 1 || h[0].Get("If-None-Match") != etag || h[0].Get("If-Modified-Since") != lastModified || h[0].Get("User-Agent") != "sitepush-test/1" {
		t.Fatalf("the GET's headers: %v; want If-None-Match %s, If-Modified-Since %s, User-Agent sitepush-test/1", h, etag, lastModified)
	}
	if p, ok := c.Check(ctx, Bing, s.URL+"/etag"); !ok || p.Reason != "" || len(s.gets("/etag")) != 2 {
		t.Errorf("a preflight after a 304: %+v (checked %v), %d GETs; want eligible, from a GET of its own", p, ok, len(s.gets("/etag")))
	}
	if h := s.gets("/etag")[1]; h.Get("If-None-Match") != "" || h.Get("If-Modified-Since") != "" {
		t.Errorf("the preflight's GET was conditional: %v", h)
	}

	read, err = c.ReadPage(ctx, s.URL+"/draft", model.Validators{})
	if err != nil || read.Content == 0 || read.NotModified {
		t.Fatalf("a 200: %+v, %v; want its content", read, err)
	}
	want, _ := fingerprint.Of(strings.NewReader(noindexPage), "text/html")
	if read.Content != want {
		t.Errorf("content %x, want the page's fingerprint %x", read.Content, want)
	}
	if h := s.gets("/draft")[0]; h.Get("If-None-Match") != "" || h.Get("If-Modified-Since") != "" {
		t.Errorf("a GET without validators was conditional: %v", h)
	}
	for _, e := range []Engine{Bing, IndexNow} {
		if p, ok := c.Check(ctx, e, s.URL+"/draft"); !ok || p.Reason != channel.NotNoindex {
			t.Errorf("%s's preflight after the content check: %+v (checked %v); want noindex, from the page's head", e.Channel, p, ok)
		}
	}
	if n := len(s.gets("/draft")); n != 1 {
		t.Errorf("/draft fetched %d times; want once, shared", n)
	}

	if p, ok := c.Check(ctx, IndexNow, s.URL+"/plain"); !ok || p.Reason != "" {
		t.Fatalf("a preflight: %+v (checked %v)", p, ok)
	}
	read, err = c.ReadPage(ctx, s.URL+"/plain", model.Validators{})
	if err != nil || read.Content == 0 || len(s.gets("/plain")) != 2 {
		t.Errorf("a content check after a preflight: %+v, %v, %d GETs; want the content, from a GET of its own", read, err, len(s.gets("/plain")))
	}
}

// endless is a body that never ends: it counts what was read of it.
type endless struct{ read *atomic.Int64 }

func (e endless) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = "<p>text </p>"[i%12]
	}
	e.read.Add(int64(len(b)))
	return len(b), nil
}

// counting is a client's transport whose answers' bodies count what the Checker read of them.
type counting struct {
	next http.RoundTripper
	read atomic.Int64
}

func (c *counting) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(resp.Body, countWriter{&c.read}), resp.Body}
	}
	return resp, err
}

type countWriter struct{ n *atomic.Int64 }

func (w countWriter) Write(b []byte) (int, error) { w.n.Add(int64(len(b))); return len(b), nil }

// bomb is a gzip stream of 64 MiB of spaces, some KB on the wire.
func bomb(t *testing.T) []byte {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for range 64 {
		z.Write(chunk)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadPageBadAnswers: an answer that is no page is an error, never a content: an error
// status, a redirect (not followed: its target gets no request), a redirect loop, a page that
// never answers or stops half-way (the fetch's timeout), a 5 GB body or a gzip bomb (read no
// further than fingerprint.MaxBytes).
func TestReadPageBadAnswers(t *testing.T) {
	gz := bomb(t)
	stall := make(chan struct{})
	s := newStrictSite(t, map[string]func(http.ResponseWriter){
		"/500": func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) },
		"/404": func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) },
		"/moved": func(w http.ResponseWriter) {
			w.Header().Set("Location", "/target")
			w.WriteHeader(http.StatusMovedPermanently)
		},
		"/loop": func(w http.ResponseWriter) {
			w.Header().Set("Location", "/loop")
			w.WriteHeader(http.StatusFound)
		},
		"/silent": func(http.ResponseWriter) { <-stall },
		"/half": func(w http.ResponseWriter) {
			w.Write([]byte("<html><head><title>Half</title></head><body>"))
			w.(http.Flusher).Flush()
			<-stall
		},
		"/huge": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", fmt.Sprint(5<<30))
			io.Copy(w, endless{read: new(atomic.Int64)})
		},
		"/bomb": func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz)
		},
	})
	t.Cleanup(func() { close(stall) }) // before the server closes: it waits for its handlers
	tr := &counting{next: s.Client().Transport}
	c := New(&http.Client{Transport: tr}, "sitepush-test")
	c.timeout = 200 * time.Millisecond
	for _, tc := range []struct {
		path, want string
		is         error
	}{
		{"/500", "HTTP 500", nil},
		{"/404", "HTTP 404", nil},
		{"/moved", "HTTP 301, redirected to " + s.URL + "/target", nil},
		{"/loop", "HTTP 302, redirected to " + s.URL + "/loop", nil},
		{"/silent", "no answer within 200ms", nil},
		{"/half", "", context.DeadlineExceeded},
		{"/huge", "", fingerprint.ErrTooLarge},
		{"/bomb", "", fingerprint.ErrTooLarge},
	} {
		tr.read.Store(0)
		read, err := c.ReadPage(context.Background(), s.URL+tc.path, model.Validators{})
		switch {
		case err == nil || read != (model.PageRead{}):
			t.Errorf("%s: %+v, %v; want an error and nothing read", tc.path, read, err)
		case tc.want != "" && !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v; want %q", tc.path, err, tc.want)
		case tc.is != nil && !errors.Is(err, tc.is):
			t.Errorf("%s: %v; want an error wrapping %v", tc.path, err, tc.is)
		}
		// The most a page may cost: MaxBytes, and the reads of the tokenizer and gzip beyond.
		if n := tr.read.Load(); n > fingerprint.MaxBytes+1<<20 {
			t.Errorf("%s: read %d bytes; want at most %d", tc.path, n, fingerprint.MaxBytes+1<<20)
		}
		if n := len(s.gets(tc.path)); n != 1 {
			t.Errorf("%s: %d GETs, want 1", tc.path, n)
		}
	}
	if n := len(s.gets("/target")); n != 0 {
		t.Errorf("the redirect's target got %d GETs; want none", n)
	}
}

// TestReadPageTakesTheCheckersSlots: content checks and preflights together make at most
// parallel fetches at once.
func TestReadPageTakesTheCheckersSlots(t *testing.T) {
	var inFlight, most atomic.Int32
	s := newSite(t, nil)
	next := s.Config.Handler
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		next.ServeHTTP(w, r)
		inFlight.Add(-1)
	})
	c := New(s.Client(), "t")
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			u := fmt.Sprintf("%s/p/%d", s.URL, i)
			if i%4 == 0 {
				c.Check(context.Background(), Bing, u)
				return
			}
			if _, err := c.ReadPage(context.Background(), u, model.Validators{}); err != nil {
				t.Errorf("%s: %v", u, err)
			}
		})
	}
	wg.Wait()
	if most.Load() > parallel {
		t.Errorf("%d fetches at once, want at most %d", most.Load(), parallel)
	}
}
