package store_test

import (
	"context"
	"testing"

	"github.com/sitepush/sitepush/internal/statetest"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestContract runs the contract every state keeps on the SQL store (on PostgreSQL too, with
// SITEPUSH_TEST_POSTGRES): another view of it is a second store on the same database, as
// another process would open it once the first stopped.
func TestContract(t *testing.T) {
	states := map[statetest.State]string{}
	statetest.Run(t, statetest.Backend{
		Open: func(t *testing.T) statetest.State {
			state := storetest.State(t)
			s := openStore(t, state)
			states[s] = state
			return s
		},
		Reopen: func(t *testing.T, s statetest.State) statetest.State {
			// The view reopened is not used again: closed, as the process that had it stopped,
			// it holds no connection while a long history reopens the store many times.
			state := states[s]
			delete(states, s)
			s.(*store.Store).Close()
			again := openStore(t, state)
			states[again] = state
			return again
		},
	})
}

// openStore opens a store on state, closed when the test ends.
func openStore(t *testing.T, state string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
