package store_test

import (
	"testing"

	"github.com/sitepush/sitepush/internal/statetest"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// TestContract runs the contract every state keeps on the SQL store (on PostgreSQL too, with
// SITEPUSH_TEST_POSTGRES): another view of it is the same database.
func TestContract(t *testing.T) {
	statetest.Run(t, statetest.Backend{
		Open:   func(t *testing.T) statetest.State { return storetest.Open(t) },
		Reopen: func(_ *testing.T, s statetest.State) statetest.State { return s },
	})
}
