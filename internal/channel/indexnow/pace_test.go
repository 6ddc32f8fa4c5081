package indexnow_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// slowEngine wraps an engine: each request takes latency — unless the client gives up first —
// and it records when each started and the most requests ever in flight at once.
type slowEngine struct {
	h        http.Handler
	latency  time.Duration
	mu       sync.Mutex
	inFlight int
	peak     int
	starts   []time.Time
}

func (s *slowEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inFlight++
	s.peak = max(s.peak, s.inFlight)
	s.starts = append(s.starts, time.Now())
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	select {
	case <-time.After(s.latency):
		s.h.ServeHTTP(w, r)
	case <-r.Context().Done(): // the client gave up: the request never reaches the engine
	}
}

func TestConcurrencyAndInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) {
			in.Method, in.MaxConcurrent, in.Interval = "get", 3, config.Duration(100*time.Millisecond)
		})
		slow := &slowEngine{h: w.engine(), latency: time.Second}
		w.client.Transport = clientOf(slow).Transport
		r := w.run(w.due(pages(12)))
		if r.Submitted() != 12 || slow.peak != 3 {
			t.Fatalf("submitted %d, at most %d in flight; want 12 and 3", r.Submitted(), slow.peak)
		}
		for i := 1; i < len(slow.starts); i++ {
			if gap := slow.starts[i].Sub(slow.starts[i-1]); gap < 100*time.Millisecond {
				t.Errorf("requests %d and %d started %v apart, under the 100ms interval", i-1, i, gap)
			}
		}
	})
}

func TestBudgetStopsAndTheNextRunFinishes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.Method, in.MaxConcurrent = "get", 1 })
		w.site.RunBudget = config.Duration(10500 * time.Millisecond)
		slow := &slowEngine{h: w.engine(), latency: time.Second}
		w.client.Transport = clientOf(slow).Transport
		r := w.run(w.due(pages(30)))
		// The request in flight when the budget ends is let finish and recorded. The run was only
		// stopped: no failure, no error.
		if r.Submitted() != 11 || r.Left() != 19 || r.FailedURLs() != 0 || len(r.Errors()) != 0 || len(w.engine().Accepted()) != 11 {
			t.Fatalf("submitted %d, left %d, failed %d, errors %q, engine accepted %d",
				r.Submitted(), r.Left(), r.FailedURLs(), r.Errors(), len(w.engine().Accepted()))
		}
		w.site.RunBudget = config.Duration(time.Hour)
		if r := w.run(r.next()); r.Due() != 19 || r.Submitted() != 19 || len(w.engine().Accepted()) != 30 {
			t.Errorf("the next run: due %d, submitted %d, engine accepted %d", r.Due(), r.Submitted(), len(w.engine().Accepted()))
		}
	})
}

func TestKeyNeverPrintedWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.Method, in.MaxRetries = "get", 0 })
		w.client.Transport = clientOf(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			panic(http.ErrAbortHandler)
		})).Transport
		w.keyFile = "wrong"
		all := strings.Join(w.run(w.due(pages(1))).Errors(), "\n")
		if all == "" || strings.Contains(strings.ReplaceAll(all, key+".txt", ""), key) {
			t.Errorf("errors %q show the key", all)
		}
	})
}

func TestAnEchoedKeyIsMasked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, func(in *config.IndexNow) { in.MaxRetries = 0 })
		w.client.Transport = clientOf(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			rw.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(rw).Encode(map[string]string{"message": "bad request " + string(body)}) // the request, quoted back
		})).Transport
		all := strings.Join(w.run(w.due(pages(1))).Errors(), "\n")
		if !strings.Contains(all, "a1b2…") || strings.Contains(all, key) {
			t.Errorf("errors %q", all)
		}
	})
}
