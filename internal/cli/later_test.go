package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/enginetest"
)

// TestWhatRunSaysOfALaterRun: `run` on a state that keeps nothing (state: memory, the CI path)
// promises no later run anywhere in its output — not for URLs that failed, those a quota held
// back (in a dry run too), nor those its budget left — and says why nothing is kept; on a state
// that keeps them it says the ordinary words.
func TestWhatRunSaysOfALaterRun(t *testing.T) {
	promise := regexp.MustCompile(`(?i)next run|first run after that|go first next run|the later run|taken as known`)
	for _, state := range []string{"memory", "sqlite:state.db"} {
		t.Run(state, func(t *testing.T) {
			// IndexNow fails for now; Bing's quota takes 1 of 3 URLs.
			b := &enginetest.Bing{Keys: map[string]int{"bing-key-123": 1000}}
			bsrv := httptest.NewServer(b)
			defer bsrv.Close()
			w := newTestWorld(t, "    bing: {enabled: true, apiKey: bing-key-123, dailyQuota: 1, endpoint: "+bsrv.URL+"/webmaster/api.svc/json}\n")
			w.publish(3)
			setState(t, w.config, state, "interval: 1ms, maxRetries: 0,")
			w.eng.Fail(enginetest.Fault{Status: 503})
			var all strings.Builder
			for _, args := range [][]string{{"--dry-run"}, {}} {
				_, out, errOut := run(t, append([]string{"run", "--config", w.config}, args...)...)
				all.WriteString(out + errOut)
			}
			// A run whose budget ends while IndexNow takes its time: what it did not get to is left.
			slow := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				time.Sleep(time.Second)
				w.eng.ServeHTTP(rw, r)
			}))
			defer slow.Close()
			left := newTestWorld(t, "    runBudget: 200ms\n")
			left.publish(3)
			setState(t, left.config, state, "batchSize: 1, maxConcurrent: 1, interval: 1ms,")
			writeFile(t, left.config, strings.Replace(readFile(t, left.config), left.engine.URL, slow.URL, 1))
			left.eng = w.eng
			_, out, errOut := run(t, "run", "--config", left.config)
			all.WriteString(out + errOut)
			said := all.String()
			for _, want := range []string{"held back", "left", "HTTP 503"} {
				if !strings.Contains(said, want) {
					t.Fatalf("the runs did not say %q: the test sets up no such case:\n%s", want, said)
				}
			}
			if state == "memory" {
				if m := promise.FindString(said); m != "" || !strings.Contains(said, "(state: memory)") {
					t.Errorf("with state: memory the output says %q, or not why nothing is kept:\n%s", m, said)
				}
				return
			}
			for _, want := range []string{"it is tried again next run", "held back, for the first run after that", "left for the next run"} {
				if !strings.Contains(said, want) {
					t.Errorf("with %s the output does not say %q:\n%s", state, want, said)
				}
			}
		})
	}
}

// setState makes the configuration at path use state, and settings the IndexNow defaults.
func setState(t *testing.T, path, state, settings string) {
	t.Helper()
	c := strings.NewReplacer("state: sqlite:state.db", "state: "+state, "interval: 1ms,", settings).Replace(readFile(t, path))
	if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
}
