package bing_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// drip is Bing whose calls named in slow answer HTTP 200 at once, then a byte a second for two
// minutes, never a whole answer; it counts those calls. The rest is Bing's.
type drip struct {
	bing  *enginetest.Bing
	slow  string
	mu    sync.Mutex
	calls int
}

func (d *drip) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/"+d.slow) {
		d.bing.ServeHTTP(w, r)
		return
	}
	d.mu.Lock()
	d.calls++
	d.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	for range 120 {
		if _, err := w.Write([]byte(" ")); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (d *drip) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls
}

// A GetUrlInfo answer that drips, a byte a second, is cut at the call's deadline, which bounds
// the whole answer and not each read; and as a Bing that does not answer, it ends the run's
// questions: none is asked after it, and one note says so.
func TestTrackStopsAtASlowAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := tracked(t, func(b *config.Bing) { b.APIKey = "k" }, 20, time.Now().Add(-time.Hour))
		slow := &drip{bing: w.bing, slow: "GetUrlInfo"}
		w.client = enginetest.Served(t, slow)
		rep, _ := w.idle()
		notes := rep.Notes()
		if slow.count() != 1 || len(notes) != 1 || !strings.Contains(notes[0], "no more URLs are asked about in this run") ||
			!strings.Contains(notes[0], "had not ended") || len(rep.Errors()) != 0 {
			t.Errorf("GetUrlInfo asked %d times, notes %q, errors %q; want once, and one note that it stopped", slow.count(), notes, rep.Errors())
		}
	})
}

// A quota call whose answer drips is no answer: the run sends nothing to Bing, and says why.
func TestQuotaSlowAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey = "k" }, map[string]int{"k": 100})
		w.client = enginetest.Served(t, &drip{bing: w.bing, slow: "GetUrlSubmissionQuota"})
		r := w.run()
		errs := strings.Join(r.errs(), "\n")
		if len(w.bing.Batches()) != 0 || !strings.Contains(errs, "GetUrlSubmissionQuota") || !strings.Contains(errs, "had not ended") {
			t.Errorf("%d batches sent, errors %q; want none sent, and the quota call's answer named", len(w.bing.Batches()), errs)
		}
	})
}

// A SubmitUrlbatch answer that drips is cut at the request's deadline, and tried again as no
// answer is; the URLs it held fail, with a message that says the answer did not end.
func TestSubmitSlowAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 10 }, map[string]int{"k": 100})
		slow := &drip{bing: w.bing, slow: "SubmitUrlbatch"}
		w.client = enginetest.Served(t, slow)
		r := w.run()
		errs := map[string]bool{}
		for _, o := range r.Outcomes() {
			errs[o.Err] = true
		}
		want := "Bing at " + endpoint + " began its answer (HTTP 200) and had not ended it within 30s (gave up after 4 attempts); it is tried again next run"
		if r.Submitted() != 0 || slow.count() < 4 || len(errs) != 1 || !errs[want] {
			t.Errorf("%v after %d requests, outcomes' errors %v; want the batch failed, tried again, its answer named", r, slow.count(), errs)
		}
	})
}
