package enginetest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
)

// Client returns an HTTP client that hands every request to h in-process, without a network:
// inside a testing/synctest bubble its waits then run on the bubble's fake clock.
func Client(h http.Handler) *http.Client {
	return &http.Client{Transport: handlerTransport{h}}
}

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	// The handler gets a copy, as a server would: the caller's request is not touched.
	in := r.Clone(r.Context())
	in.Body = http.NoBody
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		in.Body = io.NopCloser(bytes.NewReader(body))
	}
	if in.Host == "" {
		in.Host = r.URL.Host
	}
	// As over a network, the caller stops waiting when its context ends, whatever the handler
	// does: a handler that never answers holds no one past a deadline.
	answered := make(chan *http.Response, 1)
	go func() { answered <- t.serve(in) }()
	select {
	case resp := <-answered:
		if resp == nil {
			return nil, io.ErrUnexpectedEOF
		}
		resp.Request = r
		return resp, nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// serve runs the handler; nil means it aborted, as http.ErrAbortHandler does on a server, which
// drops the connection.
func (t handlerTransport) serve(in *http.Request) (resp *http.Response) {
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				panic(p)
			}
			resp = nil
		}
	}()
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, in)
	return rec.Result()
}

// Files serves fixed bodies by path, 404 for the rest: a website in a map.
type Files map[string]string

func (f Files) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := f[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	fmt.Fprint(w, body)
}
