// Package answer holds what the HTTP faces of sitepush share — serve's and the Worker's: the JSON
// answers of docs/api.md (a site's status, the daily statistics, a feed with its validators), built
// from a state either one has, and the way they answer: JSON everywhere, errors as {"error": …},
// the bearer token compared in constant time.
package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	WriteRaw(w, status, body)
}

// WriteRaw answers a body that is already JSON.
func WriteRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
	w.Write([]byte("\n"))
}

// WriteError answers {"error": msg}.
func WriteError(w http.ResponseWriter, status int, msg string) {
	WriteJSON(w, status, map[string]string{"error": msg})
}

// Errorf answers {"error": …} with a formatted message.
func Errorf(w http.ResponseWriter, status int, format string, a ...any) {
	WriteError(w, status, fmt.Sprintf(format, a...))
}

// JSONErrors turns ServeMux's own answers — 404 for an unknown path, 405 for a known path with
// another method, in plain text — into JSON errors.
func JSONErrors(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		probe := &statusProbe{header: http.Header{}}
		mux.ServeHTTP(probe, r)
		switch probe.status {
		case http.StatusNotFound:
			Errorf(w, http.StatusNotFound, "no route %s %s: see docs/api.md for the routes", r.Method, r.URL.Path)
		case http.StatusMethodNotAllowed:
			allow := probe.header.Get("Allow")
			w.Header().Set("Allow", allow)
			Errorf(w, http.StatusMethodNotAllowed, "%s %s is not allowed; use %s", r.Method, r.URL.Path, allow)
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

// Marshal encodes v for a cache of answers.
func Marshal(v any) (any, error) {
	b, err := json.Marshal(v)
	return b, err
}

// Detached is the context of work whose result is shared with other requests (the cache): it
// does not end when the request that started it goes away.
func Detached(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), 10*time.Second)
}
