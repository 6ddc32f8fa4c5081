package kvstate_test

import (
	"context"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/statetest"
)

// TestContract runs the contract every state keeps on the KV state: another view of it is the
// next invocation, a State of its own over the same namespace an hour later, after the first
// wrote what it had.
func TestContract(t *testing.T) {
	kvs := map[statetest.State]*kvstate.MemKV{}
	later := 0
	statetest.Run(t, statetest.Backend{
		Open: func(t *testing.T) statetest.State {
			kv := &kvstate.MemKV{}
			s := kvstate.New(kv, kvstate.Options{})
			kvs[s] = kv
			return s
		},
		Reopen: func(t *testing.T, s statetest.State) statetest.State {
			if err := s.(*kvstate.State).Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			later++
			at := time.Now().Add(time.Duration(later) * time.Hour)
			next := kvstate.New(kvs[s], kvstate.Options{Now: func() time.Time { return at }})
			kvs[next] = kvs[s]
			return next
		},
	})
}
