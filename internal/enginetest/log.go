package enginetest

import (
	"strings"
	"sync"
)

// Log is a log that the code under test writes and the test reads, from any goroutine.
type Log struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
