package channel

import (
	"context"
	"time"
)

// RequestGrace is how long a request to an engine that started before the run's budget ended
// may go on past that end: long enough for an answer already on its way to be recorded, short
// enough that a budget holds (a 5m budget ends a run by 5m2s, whatever the engines do).
const RequestGrace = 2 * time.Second

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

// RequestContext is the context of one request started under ctx (a run and its budget). The
// request is not cancelled with ctx — what an engine answers once it has the request must be
// recorded, or the URLs would be sent again — but it ends timeout from now, and at the latest
// grace after ctx's deadline: a request in flight never holds a run much past its budget.
func RequestContext(ctx context.Context, timeout, grace time.Duration) (context.Context, context.CancelFunc) {
	deadline := time.Now().Add(timeout)
	if end, ok := ctx.Deadline(); ok && end.Add(grace).Before(deadline) {
		deadline = end.Add(grace)
	}
	return context.WithDeadline(context.WithoutCancel(ctx), deadline)
}

// UnlessStopped drops an error caused by the end of ctx: the run is stopping, not failing.
func UnlessStopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
