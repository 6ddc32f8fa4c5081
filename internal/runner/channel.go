package runner

import "context"

// Channel is one destination of new and changed URLs: IndexNow, Bing, the feed. A channel reads
// its due URLs from the queue a batch at a time, and reports every request and every final
// outcome as it happens; the runner records them at once, so a run that is killed loses nothing
// that was answered. Adding a channel never touches the runner.
type Channel interface {
	// Name is the channel's name in configuration, records and statistics.
	Name() string
	// Deliver sends the URLs of q. When ctx ends (the run's budget, a signal), it starts no new
	// request and abandons waits; requests already sent are let finish and reported. URLs it never
	// reports stay due for the next run.
	Deliver(ctx context.Context, q *Queue, r Reporter) error
}

// Reporter receives what a channel does, as it does it. Its methods are safe for concurrent use.
type Reporter interface {
	// Requested tells of one request to one endpoint.
	Requested(Request)
	// Finished tells the final outcome of some URLs; it returns once that is recorded.
	Finished(Outcome) error
	// HeldBack tells of n due URLs the channel did not send because a quota is spent: they stay
	// due, and are no failure.
	HeldBack(channel string, n int, why string)
	// Failed tells of a failure of the channel as a whole (a rejected API key): the URLs it did
	// not get to stay due, and the run counts as failed in part.
	Failed(channel, msg string)
	// Noted tells of something worth knowing that is no failure (a state rebuilt).
	Noted(channel, msg string)
}

// Policy is how a channel wants its due URLs chosen. A channel that does not implement Chooser
// gets the rules of SPEC §4.
type Policy struct {
	// OnlyNew makes due only URLs the channel never had, and those whose last attempt failed: a
	// newer lastmod or resubmitAfter does not bring a URL back (a feed announces new pages once).
	OnlyNew bool
	// Newest asks for the newest n pages present in the sitemaps, due or not: Queue.Newest.
	Newest int
	// FirstRun says that the channel will deliver only the Newest pages in this run and take
	// every other due URL as known (reporting it Skipped): what a dry run then shows.
	FirstRun bool
}

// Chooser is a Channel with a Policy of its own, which the runner asks for once, before it
// reads the sitemaps.
type Chooser interface {
	Policy(ctx context.Context) Policy
}
