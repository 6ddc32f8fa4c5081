package cli

import (
	"sync"
	"time"
)

// wakeEvery bounds how often site changes wake the scheduler, which reads every site when woken:
// a burst of creates through the API (a fleet being set up) costs one read per period, not one
// per site. A lone change still wakes it at once.
const wakeEvery = time.Second

// atMostEvery returns a function that calls fn at once, then at most once a period however often
// it is called: a call within the period is made at the period's end, so that the last call is
// never lost.
func atMostEvery(period time.Duration, fn func()) func() {
	var mu sync.Mutex
	var quiet, again bool // within a period of quiet; called again meanwhile
	var end func()
	end = func() {
		mu.Lock()
		call := again
		quiet, again = call, false
		mu.Unlock()
		if call {
			fn()
			time.AfterFunc(period, end)
		}
	}
	return func() {
		mu.Lock()
		if quiet {
			again = true
			mu.Unlock()
			return
		}
		quiet = true
		mu.Unlock()
		fn()
		time.AfterFunc(period, end)
	}
}
