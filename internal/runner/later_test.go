package runner_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestWhatALaterRunTakesUp: what a run says becomes of what it leaves undone — URLs that failed
// for now, held back by a quota, left by its budget, older than a first run's backlog — is the
// ordinary promise of a next run with a state that keeps it, and with one that keeps nothing
// (Options.Later, state: memory) says so, promising no run that will know of them.
func TestWhatALaterRunTakesUp(t *testing.T) {
	failing := scripted{func(q *channel.Queue, rep channel.Reporter) error {
		return rep.Finished(channel.Outcome{Channel: "bing", URLs: q.Refs(0, q.Len()), Err: "HTTP 503 from E: the engine failed; " + rep.Later().Again()})
	}}
	held := scripted{func(q *channel.Queue, rep channel.Reporter) error {
		rep.HeldBack("bing", q.Len(), "the daily quota is spent until 00:00 UTC")
		return nil
	}}
	tests := []struct {
		name, extra string
		ch          channel.Channel
		kept        string // what a state that keeps says
	}{
		{"failed for now", "", failing, "bing: HTTP 503 from E: the engine failed; it is tried again next run"},
		{"held back by a quota", "", held, "bing: the daily quota is spent until 00:00 UTC: 2 due URLs held back, for the first run after that"},
		{"left by the budget", "    runBudget: 100ms\n", &fakeChannel{name: "indexnow", batch: 1, block: true}, "runBudget ran out: 1 due URL left for the next run"},
		{"older than the backlog", "    backlog: 720h\n", &fakeChannel{name: "indexnow", batch: 10},
			"indexnow: first run with backlog 720h: 1 URL older than that, not sent (taken as known: a change sends it)"},
	}
	for _, tt := range tests {
		for _, forgets := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/forgets %t", tt.name, forgets), func(t *testing.T) {
				r := runner.New(storetest.Open(t))
				now := time.Now()
				s := newSite(t, tt.extra)
				s.publish("/new "+now.Format(time.DateOnly), "/old 2020-01-01")
				rec := run(t, r, s, runner.Options{Channels: []channel.Channel{tt.ch}, Later: model.Later{Forgets: forgets}})
				said := strings.Join(append(append([]string{}, rec.Errors...), rec.Notes...), "\n")
				if !forgets {
					if !strings.Contains(said, tt.kept) {
						t.Errorf("said %q, want %q", said, tt.kept)
					}
					return
				}
				for _, promise := range []string{"next run", "first run after that", "taken as known"} {
					if strings.Contains(said, promise) {
						t.Errorf("with a state that keeps nothing, said %q", said)
					}
				}
				if !strings.Contains(said, "state: memory") {
					t.Errorf("with a state that keeps nothing, said %q: want it said why nothing is kept", said)
				}
			})
		}
	}
}
