package enginetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Bing is a strict Bing Webmaster API: SubmitUrlbatch and GetUrlSubmissionQuota, with a daily
// quota per key and site counted as Bing does, and Bing's error bodies
// ({"ErrorCode": n, "Message": "ERROR!!! …"}) for a bad key, a URL of another site, a spent quota.
type Bing struct {
	// Keys maps each valid API key to its daily quota.
	Keys map[string]int

	mu      sync.Mutex
	used    map[string]int // by key and siteUrl
	faults  []Fault
	batches []BingBatch
}

// BingBatch is one SubmitUrlbatch request answered.
type BingBatch struct {
	Status    int
	ErrorCode int
	SiteURL   string
	URLs      []string
}

// Fail scripts the next answers of SubmitUrlbatch.
func (b *Bing) Fail(f ...Fault) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.faults = append(b.faults, f...)
}

// Batches returns every SubmitUrlbatch request answered so far.
func (b *Bing) Batches() []BingBatch {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]BingBatch(nil), b.batches...)
}

// Accepted returns the URLs Bing accepted, in order.
func (b *Bing) Accepted() []string {
	var out []string
	for _, x := range b.Batches() {
		if x.Status == http.StatusOK {
			out = append(out, x.URLs...)
		}
	}
	return out
}

func (b *Bing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used == nil {
		b.used = map[string]int{}
	}
	key := r.URL.Query().Get("apikey")
	switch {
	case strings.HasSuffix(r.URL.Path, "/GetUrlSubmissionQuota") && r.Method == http.MethodGet:
		if _, ok := b.Keys[key]; !ok {
			bingError(w, http.StatusUnauthorized, 3, "ERROR!!! InvalidApiKey")
			return
		}
		left := max(0, b.Keys[key]-b.used[key+" "+r.URL.Query().Get("siteUrl")])
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprintf(w, `{"d":{"__type":"UrlSubmissionQuota:#Microsoft.Bing.Webmaster.Api","DailyQuota":%d,"MonthlyQuota":%d}}`, left, left*30)
	case strings.HasSuffix(r.URL.Path, "/SubmitUrlbatch") && r.Method == http.MethodPost:
		b.submit(w, r, key)
	default:
		http.NotFound(w, r)
	}
}

// submit answers SubmitUrlbatch; the caller holds b.mu.
func (b *Bing) submit(w http.ResponseWriter, r *http.Request, key string) {
	var req struct {
		SiteURL string   `json:"siteUrl"`
		URLList []string `json:"urlList"`
	}
	body, _ := io.ReadAll(r.Body)
	batch := BingBatch{}
	defer func() { b.batches = append(b.batches, batch) }()
	if len(b.faults) > 0 {
		f := b.faults[0]
		b.faults = b.faults[1:]
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		batch.Status, batch.ErrorCode = f.Status, f.ErrorCode
		msg := f.Message
		if msg == "" {
			msg = "ERROR!!! scripted fault"
		}
		bingError(w, f.Status, f.ErrorCode, msg)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || json.Unmarshal(body, &req) != nil {
		batch.Status, batch.ErrorCode = http.StatusBadRequest, 8
		bingError(w, batch.Status, batch.ErrorCode, "ERROR!!! InvalidRequest")
		return
	}
	batch.SiteURL, batch.URLs = req.SiteURL, req.URLList
	quota, ok := b.Keys[key]
	switch {
	case !ok:
		batch.Status, batch.ErrorCode = http.StatusUnauthorized, 3
		bingError(w, batch.Status, 3, "ERROR!!! InvalidApiKey")
		return
	case len(req.URLList) == 0 || len(req.URLList) > 500:
		batch.Status, batch.ErrorCode = http.StatusBadRequest, 6
		bingError(w, batch.Status, 6, "ERROR!!! InvalidParameter urlList")
		return
	}
	for _, u := range req.URLList {
		if !strings.HasPrefix(u, req.SiteURL) {
			batch.Status, batch.ErrorCode = http.StatusBadRequest, 7
			bingError(w, batch.Status, 7, "ERROR!!! InvalidUrl "+u)
			return
		}
	}
	k := key + " " + req.SiteURL
	if b.used[k]+len(req.URLList) > quota {
		batch.Status, batch.ErrorCode = http.StatusBadRequest, 2
		bingError(w, batch.Status, 2, fmt.Sprintf("ERROR!!! You have exceeded your daily url submission quota : %d", quota))
		return
	}
	b.used[k] += len(req.URLList)
	batch.Status = http.StatusOK
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	io.WriteString(w, `{"d":null}`)
}

func bingError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"ErrorCode": code, "Message": msg})
}
