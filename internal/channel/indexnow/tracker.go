package indexnow

import (
	"slices"
	"strings"
	"sync"

	"github.com/sitepush/sitepush/internal/channel"
)

// tracker combines what every endpoint did with each URL of a batch: a URL is delivered as soon as
// one endpoint accepts it — recorded at once — and failed only once every endpoint has failed it;
// rejected when, besides, an endpoint refused it on its own.
type tracker struct {
	rep       channel.Reporter
	endpoints int
	mu        sync.Mutex
	jobs      map[int]*jobState
}

// jobState is what is known of one batch so far, per URL (by hash).
type jobState struct {
	pending   int // endpoints that have not answered for the batch
	delivered map[int64]bool
	rejected  map[int64]bool
	errs      map[int64][]string
}

// done records one endpoint's results for batch k (urls), reporting what is settled.
func (t *tracker) done(k int, urls []channel.Due, parts []part) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	j := t.jobs[k]
	if j == nil {
		j = &jobState{pending: t.endpoints, delivered: map[int64]bool{}, rejected: map[int64]bool{}, errs: map[int64][]string{}}
		t.jobs[k] = j
	}
	for _, p := range parts {
		if err := t.record(j, p); err != nil {
			return err
		}
	}
	if j.pending--; j.pending > 0 {
		return nil
	}
	delete(t.jobs, k)
	return t.settle(j, urls)
}

// record takes one part: accepted URLs are reported delivered at once, the first time.
func (t *tracker) record(j *jobState, p part) error {
	if !p.ok {
		for _, d := range p.urls {
			j.errs[d.Hash] = append(j.errs[d.Hash], p.msg)
			j.rejected[d.Hash] = j.rejected[d.Hash] || p.rejected
		}
		return nil
	}
	fresh := slices.DeleteFunc(slices.Clone(p.urls), func(d channel.Due) bool { return j.delivered[d.Hash] })
	if len(fresh) == 0 {
		return nil
	}
	if err := t.rep.Finished(channel.Outcome{Channel: name, URLs: fresh, Delivered: true}); err != nil {
		return err
	}
	for _, d := range fresh {
		j.delivered[d.Hash] = true
	}
	return nil
}

// settle reports the URLs no endpoint accepted, grouped by what went wrong.
func (t *tracker) settle(j *jobState, urls []channel.Due) error {
	type key struct {
		msg      string
		rejected bool
	}
	groups := map[key][]channel.Due{}
	var order []key
	for _, d := range urls {
		if j.delivered[d.Hash] {
			continue
		}
		k := key{strings.Join(j.errs[d.Hash], "; "), j.rejected[d.Hash]}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], d)
	}
	for _, k := range order {
		if err := t.rep.Finished(channel.Outcome{Channel: name, URLs: groups[k], Err: k.msg, Rejected: k.rejected}); err != nil {
			return err
		}
	}
	return nil
}
