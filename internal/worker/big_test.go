package worker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/kvstate"
)

// TestASiteTooBigForTheWorker: a site larger than the Worker holds fails its run with one message,
// "too many URLs" once, that says what to do — in the log of the tick and in /status — and sends
// nothing, however many channels it has.
func TestASiteTooBigForTheWorker(t *testing.T) {
	w := newWorld(t)
	var ps []string
	for i := range kvstate.DefaultEntries + 50 {
		ps = append(ps, fmt.Sprintf("/p/%d 2026-01-01", i))
	}
	w.publish(ps...)
	w.tick(t0)
	_, status := w.call("GET", "/status?site=demo", testToken)
	for what, text := range map[string]string{"the log": w.log.String(), "/status": status} {
		if n := strings.Count(text, "too many URLs"); n != 1 || !strings.Contains(text, "run the site with sitepush serve, or split its sitemaps among sites") {
			t.Errorf("%s says \"too many URLs\" %d times, want once with what to do: %s", what, n, text)
		}
	}
	if got := len(w.engine.Accepted()); got != 0 {
		t.Errorf("IndexNow got %d URLs of a site too big to run", got)
	}
}
