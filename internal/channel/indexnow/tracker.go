package indexnow

import (
	"strings"
	"sync"

	"github.com/sitepush/sitepush/internal/runner"
)

// tracker combines what every endpoint did with one batch: the batch is delivered as soon as one
// endpoint accepts it — recorded at once — and failed only once every endpoint has failed it.
type tracker struct {
	rep       runner.Reporter
	endpoints int
	mu        sync.Mutex
	jobs      map[int]*jobState
}

type jobState struct {
	pending   int
	delivered bool
	errs      []string
}

// done records one endpoint's result for batch k. urls are the batch's URLs.
func (t *tracker) done(k int, urls []runner.Due, ok bool, msg string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.jobs[k]
	if j == nil {
		j = &jobState{pending: t.endpoints}
		t.jobs[k] = j
	}
	j.pending--
	if j.pending == 0 {
		delete(t.jobs, k)
	}
	switch {
	case ok && !j.delivered:
		j.delivered = true
		return t.rep.Finished(runner.Outcome{Channel: name, URLs: urls, Delivered: true})
	case !ok && !j.delivered:
		j.errs = append(j.errs, msg)
		if j.pending == 0 {
			return t.rep.Finished(runner.Outcome{Channel: name, URLs: urls, Err: strings.Join(j.errs, "; ")})
		}
	}
	return nil
}
