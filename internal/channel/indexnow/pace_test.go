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

	"github.com/sitepush/sitepush/internal/model"
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
		w := newWorld(t, "method: get, maxConcurrent: 3, interval: 100ms")
		slow := &slowEngine{h: w.engine(), latency: time.Second}
		w.client.Transport = clientOf(slow).Transport
		w.publish(12)
		rec := w.run()
		if rec.Channels["indexnow"].Submitted != 12 || slow.peak != 3 {
			t.Fatalf("submitted %d, at most %d in flight; want 12 and 3", rec.Channels["indexnow"].Submitted, slow.peak)
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
		w := newWorld(t, "method: get, maxConcurrent: 1")
		w.site.RunBudget = 10500 * 1e6 // 10.5s
		slow := &slowEngine{h: w.engine(), latency: time.Second}
		w.client.Transport = clientOf(slow).Transport
		w.publish(30)
		rec := w.run()
		st := rec.Channels["indexnow"]
		// The request in flight when the budget ends is let finish and recorded.
		if rec.Status != model.StatusBudgetExhausted || st.Submitted != 11 || st.Left != 19 || len(w.engine().Accepted()) != 11 {
			t.Fatalf("status %s, %+v, engine accepted %d", rec.Status, st, len(w.engine().Accepted()))
		}
		w.site.RunBudget = 3600 * 1e9
		rec = w.run()
		if st := rec.Channels["indexnow"]; st.Due != 19 || st.Submitted != 19 || len(w.engine().Accepted()) != 30 {
			t.Errorf("the next run: %+v, engine accepted %d", st, len(w.engine().Accepted()))
		}
	})
}

func TestKeyNeverPrintedWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "method: get, maxRetries: 0")
		w.client.Transport = clientOf(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			panic(http.ErrAbortHandler)
		})).Transport
		w.keyFile = "wrong"
		w.publish(1)
		rec := w.run()
		all := strings.Join(rec.Errors, "\n")
		if all == "" || strings.Contains(strings.ReplaceAll(all, key+".txt", ""), key) {
			t.Errorf("errors %q show the key", all)
		}
	})
}

func TestAnEchoedKeyIsMasked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "maxRetries: 0")
		w.client.Transport = clientOf(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			rw.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(rw).Encode(map[string]string{"message": "bad request " + string(body)}) // the request, quoted back
		})).Transport
		w.publish(1)
		rec := w.run()
		all := strings.Join(rec.Errors, "\n")
		if !strings.Contains(all, "a1b2…") || strings.Contains(all, key) {
			t.Errorf("errors %q", all)
		}
	})
}
