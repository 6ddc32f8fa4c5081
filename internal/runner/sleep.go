package runner

import (
	"context"
	"time"
)

// Sleep waits d unless ctx ends first, and then returns ctx's error: the waits of a run (between
// retries, for a lease) end with the run.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
