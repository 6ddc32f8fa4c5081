package bing_test

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// TestFailedURLsGoFirst checks that URLs whose last attempt failed are sent before the others,
// whatever the priority, when the quota cannot take every due URL.
func TestFailedURLsGoFirst(t *testing.T) {
	for _, priority := range []string{"newest", "random"} {
		synctest.Test(t, func(t *testing.T) {
			w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota, b.BatchSize, b.Priority = "k", 5, 100, priority },
				map[string]int{"k": 1000})
			var failed []string
			for _, i := range []int{3, 150, 299, 42, 7} {
				w.due[i].Retry, w.due[i].Failures = true, 1
				failed = append(failed, w.due[i].URL)
			}
			w.run()
			got := w.bing.Accepted()
			slices.Sort(got)
			slices.Sort(failed)
			if !slices.Equal(got, failed) {
				t.Errorf("priority %s, a quota of 5 and 5 failed URLs: sent %v, want the failed ones %v", priority, got, failed)
			}
		})
	}
}

// TestAKeyRefusedOnSubmission checks that Bing refusing the key, or the site for this key, when
// URLs are submitted — after the quota call took it — stops Bing for the site without failing
// the URLs: they stay due for when the key is fixed.
func TestAKeyRefusedOnSubmission(t *testing.T) {
	for _, tc := range []struct {
		fault enginetest.Fault
		want  string
	}{
		{enginetest.Fault{Status: 401, ErrorCode: 3, Message: "ERROR!!! InvalidApiKey"}, "the API key was rejected: check bing.apiKey"},
		{enginetest.Fault{Status: 400, ErrorCode: 9, Message: "ERROR!!! NotAuthorized"}, "add and verify https://www.example.com in Bing Webmaster Tools"},
	} {
		synctest.Test(t, func(t *testing.T) {
			w := newWorld(t, func(b *config.Bing) { b.APIKey, b.DailyQuota, b.BatchSize = "k", 300, 100 }, map[string]int{"k": 1000})
			w.bing.Fail(tc.fault)
			r := w.run()
			if msg := strings.Join(r.errs(), " "); r.FailedURLs() != 0 || r.left() != 300 || len(w.bing.Batches()) != 1 ||
				!strings.Contains(msg, tc.want) {
				t.Errorf("ErrorCode %d on submission: %v, %d batches, errors %q; want Bing stopped, every URL still due",
					tc.fault.ErrorCode, r, len(w.bing.Batches()), r.errs())
			}
		})
	}
}
