package enginetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Bing is a strict Bing Webmaster API: SubmitUrlbatch, GetUrlSubmissionQuota and GetUrlInfo,
// with a daily quota per key and site counted as Bing does, and Bing's error bodies
// ({"ErrorCode": n, "Message": "ERROR!!! …"}) for a bad key, a missing parameter, a URL of
// another site, a spent quota.
type Bing struct {
	// Keys maps each valid API key to its daily quota.
	Keys map[string]int

	mu      sync.Mutex
	used    map[string]int // by key and siteUrl
	faults  []Fault
	batches []BingBatch
	info    map[string]BingURLInfo
	asked   []string
}

// BingURLInfo is what GetUrlInfo tells of a URL: a zero time is DateTime.MinValue, "never".
// Offset, like "-0700", is written into the dates as WCF does; it does not move the instant.
type BingURLInfo struct {
	LastCrawled time.Time
	HTTPStatus  int
	Discovered  time.Time
	Offset      string
}

// SetInfo replaces what GetUrlInfo tells, by URL; a URL not in it is unknown to Bing: never
// discovered nor crawled, HttpStatus 0.
func (b *Bing) SetInfo(info map[string]BingURLInfo) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.info = info
}

// Asked returns the URLs GetUrlInfo answered with HTTP 200, in order.
func (b *Bing) Asked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.asked...)
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
	case strings.HasSuffix(r.URL.Path, "/GetUrlInfo") && r.Method == http.MethodGet:
		b.urlInfo(w, r, key)
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

// urlInfo answers GetUrlInfo; the caller holds b.mu.
func (b *Bing) urlInfo(w http.ResponseWriter, r *http.Request, key string) {
	site, u := r.URL.Query().Get("siteUrl"), r.URL.Query().Get("url")
	switch _, ok := b.Keys[key]; {
	case !ok:
		bingError(w, http.StatusUnauthorized, 3, "ERROR!!! InvalidApiKey")
		return
	case site == "" || u == "":
		bingError(w, http.StatusBadRequest, 6, "ERROR!!! InvalidParameter siteUrl and url are required")
		return
	case !strings.HasPrefix(u, strings.TrimSuffix(site, "/")):
		bingError(w, http.StatusBadRequest, 7, "ERROR!!! InvalidUrl "+u)
		return
	}
	b.asked = append(b.asked, u)
	in := b.info[u]
	wcf := func(t time.Time) string {
		if t.IsZero() {
			return "/Date(-62135596800000)/"
		}
		return fmt.Sprintf("/Date(%d%s)/", t.UnixMilli(), in.Offset)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(map[string]any{"d": map[string]any{"__type": "UrlInfo:#Microsoft.Bing.Webmaster.Api", "Url": u,
		"HttpStatus": in.HTTPStatus, "DiscoveryDate": wcf(in.Discovered), "LastCrawledDate": wcf(in.LastCrawled),
		"DocumentSize": 0, "AnchorCount": 0, "IsPage": true, "TotalChildUrlCount": 0}})
}

func bingError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"ErrorCode": code, "Message": msg})
}
