package enginetest

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// Queue returns a queue of site's due URLs kept in memory, for testing a channel on its own: no
// state, no runner. Each due URL's hash is its place in due plus one unless it gives one.
func Queue(site string, due ...channel.Due) *channel.Queue {
	urls := channel.URLMap{}
	q := channel.NewQueue(site, urls)
	for i, d := range due {
		if d.Hash == 0 {
			d.Hash = int64(i + 1)
		}
		urls[d.Hash] = d.URL
		q.Add(d)
	}
	return q
}

// DueURLs returns a Due for each URL, none of them tried before.
func DueURLs(urls ...string) []channel.Due {
	out := make([]channel.Due, len(urls))
	for i, u := range urls {
		out[i] = channel.Due{Hash: int64(i + 1), URL: u}
	}
	return out
}

// Reporter is a channel.Reporter that keeps what a channel tells it, for tests of a channel on
// its own. It is safe for concurrent use.
type Reporter struct {
	// Forgets stands for a state that keeps nothing for a later run (state: memory): what the
	// channel says of what it leaves undone says so (Later).
	Forgets  bool
	mu       sync.Mutex
	outcomes []channel.Outcome
	requests []channel.Request
	errors   []string // as a run's record words them: "channel: message"
	notes    []string
	held     int
	waits    []Wait
}

// Wait is a wait a channel told of: channel.Reporter.Waiting.
type Wait struct {
	Channel, Cause string
	D              time.Duration
}

// Requested keeps a request.
func (r *Reporter) Requested(q channel.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, q)
}

// Finished keeps an outcome; a failed one is an error too (not one a preflight held back: no
// failure, as a run's record counts it).
func (r *Reporter) Finished(o channel.Outcome) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	o.URLs = slices.Clone(o.URLs)
	r.outcomes = append(r.outcomes, o)
	if !o.Delivered && o.Unsent == "" && !o.Ineligible() {
		r.errors = append(r.errors, o.Channel+": "+o.Err)
	}
	return nil
}

// HeldBack counts URLs held back by a quota, and notes why.
func (r *Reporter) HeldBack(ch string, n int, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held += n
	r.notes = append(r.notes, ch+": "+why)
}

// Failed keeps a failure of the channel as a whole.
func (r *Reporter) Failed(ch, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, ch+": "+msg)
}

// Noted keeps a note.
func (r *Reporter) Noted(ch, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, ch+": "+msg)
}

// Later says what becomes of what the channel leaves undone, as Forgets says.
func (r *Reporter) Later() model.Later { return model.Later{Forgets: r.Forgets} }

// Waiting keeps a wait told of.
func (r *Reporter) Waiting(ch, cause string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, Wait{Channel: ch, Cause: cause, D: d})
}

// Waits returns the waits told of, in order.
func (r *Reporter) Waits() []Wait {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.waits)
}

// Outcomes returns every outcome reported, in order.
func (r *Reporter) Outcomes() []channel.Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.outcomes)
}

// Requests returns every request reported, in order.
func (r *Reporter) Requests() []channel.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Errors returns the failures reported, of the channel and of URLs, as "channel: message".
func (r *Reporter) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errors)
}

// Notes returns what was held back and noted, as "channel: message".
func (r *Reporter) Notes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.notes)
}

// Held counts the URLs held back by a quota.
func (r *Reporter) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
}

// URLs returns the URLs of the outcomes that are delivered (true) or failed (false, rejected
// included), unsent and ineligible ones apart, in the order reported.
func (r *Reporter) URLs(delivered bool) []string {
	var out []string
	for _, o := range r.Outcomes() {
		if o.Delivered == delivered && o.Unsent == "" && !o.Ineligible() {
			for _, d := range o.URLs {
				out = append(out, d.URL)
			}
		}
	}
	return out
}

// Submitted counts the URLs delivered, as a run's record does.
func (r *Reporter) Submitted() int {
	return r.count(func(o channel.Outcome) bool { return o.Delivered && o.Unsent == "" })
}

// FailedURLs counts the URLs that failed, rejected ones included, as a run's record does.
func (r *Reporter) FailedURLs() int {
	return r.count(func(o channel.Outcome) bool { return !o.Delivered && o.Unsent == "" && !o.Ineligible() })
}

// Ineligible counts the URLs a preflight held back, as a run's record does.
func (r *Reporter) Ineligible() int { return r.count(channel.Outcome.Ineligible) }

// Unsent counts the URLs taken as known without being sent (a feed's first run's backlog).
func (r *Reporter) Unsent() int {
	return r.count(func(o channel.Outcome) bool { return o.Unsent != "" })
}

func (r *Reporter) count(kind func(channel.Outcome) bool) int {
	n := 0
	for _, o := range r.Outcomes() {
		if kind(o) {
			n += len(o.URLs)
		}
	}
	return n
}

// Deliver runs ch over q within budget (0: none), and returns what it reported and the error it
// returned. A channel that selects its due URLs (channel.Selective) is asked by its test, which
// builds the queue from the answer, as a run does before it reads.
func Deliver(ch channel.Channel, q *channel.Queue, budget time.Duration) (*Reporter, error) {
	ctx := context.Background()
	if budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	rep := &Reporter{}
	err := ch.Deliver(ctx, q, rep)
	return rep, err
}
