package bing_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// quotaAnswer serves GetUrlSubmissionQuota with h, and everything else with Bing.
func quotaAnswer(b *enginetest.Bing, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/GetUrlSubmissionQuota") {
			h(w, r)
			return
		}
		b.ServeHTTP(w, r)
	})
}

// A Bing that gives no answer to the quota call is out of reach: nothing is sent, and the run says
// so as an error of the channel, soon.
func TestAQuotaCallWithoutAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		quota http.HandlerFunc
		want  string
	}{
		{"no answer", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, "no answer from Bing within 15s"},
		{"the connection dropped", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }, "no answer from Bing (unexpected EOF)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 120 }, map[string]int{"k": 1000})
				w.client = enginetest.Client(quotaAnswer(w.bing, tc.quota))
				start := time.Now()
				r := w.run()
				took := time.Since(start)
				msg := strings.Join(r.errs(), "\n")
				// An error of the channel, no URL failed: every due URL stays due.
				if len(w.bing.Batches()) != 0 || len(r.errs()) == 0 || r.FailedURLs() != 0 || r.left() != 300 || took > 15*time.Second {
					t.Fatalf("%d batches sent, %v after %v, errors %q", len(w.bing.Batches()), r, took, msg)
				}
				if !strings.Contains(msg, "bing: GetUrlSubmissionQuota at "+endpoint+": "+tc.want) || !strings.Contains(msg, "the due URLs stay due for the next run") {
					t.Errorf("errors %q", msg)
				}
			})
		})
	}
}

// A Bing that answers the quota call, but not with the quota, does not know: the configured
// dailyQuota is counted on, and Bing's own refusal still stops the day.
func TestAQuotaAnswerThatSaysNothing(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
	}{
		{"a 5xx", "application/json", `{"ErrorCode": 1, "Message": "ERROR!!! InternalError"}`, 503},
		{`{"d":null}`, "application/json; charset=utf-8", `{"d":null}`, 200},
		{"no DailyQuota", "application/json", `{"d":{"MonthlyQuota":3000}}`, 200},
		{"an HTML page", "text/html", "<html><body>Sign in to the Wi-Fi</body></html>", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota = "k", 120 }, map[string]int{"k": 1000})
				w.client = enginetest.Client(quotaAnswer(w.bing, func(rw http.ResponseWriter, r *http.Request) {
					rw.Header().Set("Content-Type", tc.contentType)
					rw.WriteHeader(tc.status)
					rw.Write([]byte(tc.body))
				}))
				r := w.run()
				notes := strings.Join(r.Notes(), "\n")
				if r.Submitted() != 120 || r.Held() != 180 || !r.clean() {
					t.Fatalf("%v, errors %q, notes %q", r, r.errs(), notes)
				}
				if !strings.Contains(notes, "bing: the quota Bing leaves today is unknown") || !strings.Contains(notes, "120 left today (your bing.dailyQuota of 120)") ||
					strings.Contains(notes, "Sign in") {
					t.Errorf("notes %q", notes)
				}
			})
		})
	}
}
