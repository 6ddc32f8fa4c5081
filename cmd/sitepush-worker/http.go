//go:build js && wasm

package main

import (
	"bytes"
	"net/http"
	"syscall/js"
)

// toRequest is a JS Request as an http.Request. The Worker's routes read no body.
func toRequest(req js.Value) (*http.Request, error) {
	r, err := http.NewRequest(req.Get("method").String(), req.Get("url").String(), http.NoBody)
	if err != nil {
		return nil, err
	}
	entries := req.Get("headers").Call("entries")
	for {
		next := entries.Call("next")
		if next.Get("done").Truthy() {
			break
		}
		pair := next.Get("value")
		r.Header.Add(pair.Index(0).String(), pair.Index(1).String())
	}
	r.RequestURI = r.URL.RequestURI()
	r.RemoteAddr = r.Header.Get("CF-Connecting-IP")
	return r, nil
}

// response is an http.ResponseWriter that becomes a JS Response.
type response struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newResponse() *response { return &response{header: http.Header{}} }

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *response) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// toJS is the JS Response; a HEAD request's, a 204's or a 304's has no body.
func (w *response) toJS(method string) js.Value {
	w.WriteHeader(http.StatusOK)
	headers := js.Global().Get("Headers").New()
	for name, values := range w.header {
		for _, v := range values {
			headers.Call("append", name, v)
		}
	}
	body := js.Null()
	if method != http.MethodHead && w.status != http.StatusNoContent && w.status != http.StatusNotModified {
		body = toJSBytes(w.body.Bytes())
	}
	return js.Global().Get("Response").New(body, map[string]any{"status": w.status, "headers": headers})
}
