package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// maxBody bounds request bodies: a site's configuration is a few KiB.
const maxBody = 1 << 20

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	writeRaw(w, status, body)
}

// writeRaw answers a body that is already JSON.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
	w.Write([]byte("\n"))
}

// writeError answers {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func errorf(w http.ResponseWriter, status int, format string, a ...any) {
	writeError(w, status, fmt.Sprintf(format, a...))
}

// jsonErrors turns ServeMux's own answers — 404 for an unknown path, 405 for a known path with
// another method, in plain text — into JSON errors.
func jsonErrors(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		probe := &statusProbe{header: http.Header{}}
		mux.ServeHTTP(probe, r)
		switch probe.status {
		case http.StatusNotFound:
			errorf(w, http.StatusNotFound, "no route %s %s: see docs/api.md for the routes", r.Method, r.URL.Path)
		case http.StatusMethodNotAllowed:
			allow := probe.header.Get("Allow")
			w.Header().Set("Allow", allow)
			errorf(w, http.StatusMethodNotAllowed, "%s %s is not allowed; use %s", r.Method, r.URL.Path, allow)
		default:
			for k, v := range probe.header {
				w.Header()[k] = v
			}
			w.WriteHeader(probe.status)
		}
	})
}

// statusProbe records what ServeMux's own handlers answer.
type statusProbe struct {
	header http.Header
	status int
}

func (p *statusProbe) Header() http.Header { return p.header }
func (p *statusProbe) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	return len(b), nil
}
func (p *statusProbe) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}

// marshal encodes v for the cache.
func marshal(v any) (any, error) {
	b, err := json.Marshal(v)
	return b, err
}

// detached is the context of work whose result is shared with other requests (the cache): it
// does not end when the request that started it goes away.
func detached(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), 10*time.Second)
}
