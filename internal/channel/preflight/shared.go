package preflight

import (
	"context"
	"sync"
)

// shared is what a fetch the channels of a run share says of itself: done closes once it ended;
// ok is false when the run that fetched ended before an answer, and the next caller fetches again.
type shared struct {
	done chan struct{}
	ok   bool
}

func (s *shared) base() *shared { return s }

// fetchOnce returns m's fetch of key: made now by fetch, which closes its done, unless another
// caller made it or is making it — then this one waits for that fetch, and fetches again only
// when the other's run ended first. It returns nil when ctx ended first. mu guards m.
func fetchOnce[T any, P interface {
	*T
	base() *shared
}](ctx context.Context, mu *sync.Mutex, m map[string]P, key string, fetch func(P)) P {
	for {
		mu.Lock()
		f, mine := m[key], false
		if f == nil {
			f, mine = P(new(T)), true
			f.base().done = make(chan struct{})
			m[key] = f
		}
		mu.Unlock()
		if mine {
			fetch(f)
			if !f.base().ok {
				mu.Lock()
				delete(m, key)
				mu.Unlock()
				return nil
			}
			return f
		}
		select {
		case <-f.base().done:
			if f.base().ok {
				return f
			}
			if ctx.Err() != nil {
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}
