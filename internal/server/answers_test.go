package server

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/enginetest"
)

// A request accepted after a 429 counts once, as accepted, on the run's page and in /metrics:
// the 429 shows as a retry and among the answers, never as a failure.
func TestARequestAcceptedAfterA429CountsOnce(t *testing.T) {
	w := newWorld(t)
	w.engine.Fail(enginetest.Fault{Status: 429, RetryAfter: "0"})
	b := w.signIn()
	_, html := b.get(b.runOnce("run", url.Values{"channel": {"indexnow"}}))
	row := regexp.MustCompile(`<tr><td>indexnow</td><td class="url">[^<]*</td>(.*?)</tr>`).FindStringSubmatch(html)
	if row == nil {
		t.Fatalf("the run page has no row of the IndexNow endpoint:\n%s", html)
	}
	var nums []string
	for _, m := range regexp.MustCompile(`<td class="n" data-label="[^"]*">([^<]*)</td>`).FindAllStringSubmatch(row[1], 4) {
		nums = append(nums, m[1])
	}
	if strings.Join(nums, " ") != "1 1 0 1" || !strings.Contains(row[1], "HTTP 429 ×1") {
		t.Errorf("the run page's endpoint row: requests, accepted, failed, retries = %v; want 1 1 0 1 and the 429 among the answers:\n%s", nums, row[0])
	}
	_, text := w.call("GET", "/metrics", "")
	for outcome, want := range map[string]bool{"accepted": true, "retried": true, "failed": false} {
		got := regexp.MustCompile(`(?m)^sitepush_url_attempts_total\{channel="indexnow",[^}]*outcome="` + outcome + `"`).MatchString(text)
		if got != want {
			t.Errorf("/metrics: IndexNow URLs counted %s: %v, want %v", outcome, got, want)
		}
	}
}
