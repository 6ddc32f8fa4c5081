// Package enginetest has engines for tests that behave as the real ones document, strictly: an
// IndexNow endpoint that checks the key at its keyLocation and rejects foreign hosts, with
// scripted faults. Tests run them with httptest, or in-process through Client for testing/synctest.
package enginetest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

var keyFormat = regexp.MustCompile(`^[A-Za-z0-9-]{8,128}$`)

// Fault is a scripted answer: a status code, with a Retry-After header when RetryAfter is set,
// and for Bing an error code and message.
type Fault struct {
	Status     int
	RetryAfter string
	ErrorCode  int
	Message    string
}

// Submission is one request the engine answered.
type Submission struct {
	Method   string
	Status   int
	URLs     []string // accepted URLs; none when refused
	RawQuery string
	Body     string
}

// IndexNow is a strict IndexNow endpoint. FetchKey reads a keyLocation, as the engine does over
// the network; set it to serve the site's key file.
type IndexNow struct {
	FetchKey func(keyLocation string) (string, error)
	// AcceptStatus is the status a request it accepts is answered with: 202 unless set (Bing's
	// endpoint answers 203 to some networks, any 2xx being an acceptance).
	AcceptStatus int

	mu          sync.Mutex
	faults      []Fault
	submissions []Submission
}

// FetchOverHTTP reads a keyLocation over the network, as a real engine does: a FetchKey for a
// site served by an httptest server.
func FetchOverHTTP(keyLocation string) (string, error) {
	resp, err := http.Get(keyLocation)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Fail scripts the next answers, one per request, before normal service resumes.
func (e *IndexNow) Fail(f ...Fault) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = append(e.faults, f...)
}

// Submissions returns every request answered so far.
func (e *IndexNow) Submissions() []Submission {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Submission(nil), e.submissions...)
}

// Accepted returns the accepted URLs, in order, with repeats.
func (e *IndexNow) Accepted() []string {
	var out []string
	for _, s := range e.Submissions() {
		out = append(out, s.URLs...)
	}
	return out
}

func (e *IndexNow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	sub := Submission{Method: r.Method, RawQuery: r.URL.RawQuery, Body: string(body)}
	status, msg, urls := e.answer(w, r, body)
	sub.Status = status
	if status == http.StatusAccepted && e.AcceptStatus != 0 {
		status = e.AcceptStatus
	}
	if status >= 200 && status < 300 {
		sub.URLs = urls
	}
	e.mu.Lock()
	e.submissions = append(e.submissions, sub)
	e.mu.Unlock()
	w.WriteHeader(status)
	io.WriteString(w, msg)
}

// answer decides as the protocol says: a scripted fault first, then the request's checks.
func (e *IndexNow) answer(w http.ResponseWriter, r *http.Request, body []byte) (int, string, []string) {
	e.mu.Lock()
	if len(e.faults) > 0 {
		f := e.faults[0]
		e.faults = e.faults[1:]
		e.mu.Unlock()
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		return f.Status, "scripted fault", nil
	}
	e.mu.Unlock()
	var host, key, keyLocation string
	var urls []string
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		key, keyLocation = q.Get("key"), q.Get("keyLocation")
		if u := q.Get("url"); u != "" {
			urls = []string{u}
			if p, err := url.Parse(u); err == nil {
				host = p.Host
			}
		}
	case http.MethodPost:
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			return http.StatusBadRequest, "Content-Type must be application/json", nil
		}
		var b struct {
			Host        string   `json:"host"`
			Key         string   `json:"key"`
			KeyLocation string   `json:"keyLocation"`
			URLList     []string `json:"urlList"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return http.StatusBadRequest, "bad JSON", nil
		}
		host, key, keyLocation, urls = b.Host, b.Key, b.KeyLocation, b.URLList
	default:
		return http.StatusMethodNotAllowed, "GET or POST", nil
	}
	status, msg := e.verify(host, key, keyLocation, urls)
	return status, msg, urls
}

func (e *IndexNow) verify(host, key, keyLocation string, urls []string) (int, string) {
	switch {
	case !keyFormat.MatchString(key):
		return http.StatusBadRequest, "invalid key format"
	case len(urls) == 0:
		return http.StatusBadRequest, "no URLs"
	case len(urls) > 10000:
		return http.StatusUnprocessableEntity, "more than 10,000 URLs"
	}
	if keyLocation == "" {
		keyLocation = "https://" + host + "/" + key + ".txt"
	}
	for _, u := range append([]string{keyLocation}, urls...) {
		if p, err := url.Parse(u); err != nil || p.Host != host || (p.Scheme != "http" && p.Scheme != "https") {
			return http.StatusUnprocessableEntity, fmt.Sprintf("%s does not belong to host %s", u, host)
		}
	}
	got, err := e.FetchKey(keyLocation)
	if err != nil {
		return http.StatusForbidden, "key file not reachable: " + err.Error()
	}
	if strings.TrimSpace(got) != key {
		return http.StatusForbidden, "key file content does not match key"
	}
	return http.StatusAccepted, ""
}
