// Package model is the vocabulary the core and the stores share: the execution record of a run
// and its statuses, what the state knows of a URL on a channel, a feed's items. It decides
// nothing — the rules live in the runner and the channels — so that a store, which keeps these
// words, never imports the packages that decide.
package model

import (
	"slices"
	"time"
)

// Run statuses.
const (
	StatusRunning         = "running"
	StatusOK              = "ok"
	StatusPartial         = "partial"
	StatusFailed          = "failed"
	StatusBudgetExhausted = "budget_exhausted"
)

// GoodStatuses are those of a run without failures: it ended ok, or its budget stopped it with
// the rest left for the next run.
func GoodStatuses() []string { return []string{StatusOK, StatusBudgetExhausted} }

// maxErrors is how many errors an execution record keeps.
const maxErrors = 20

// Record is the execution record of one site run (docs/runs.md, "The execution record"): what was
// read, what was due, what each channel and each endpoint did. It is printed by `run --json`,
// stored, and served by the API.
type Record struct {
	ID         int64     `json:"id"`
	Site       string    `json:"site"`
	Trigger    string    `json:"trigger"` // schedule, manual or cli
	DryRun     bool      `json:"dryRun,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	Status     string    `json:"status"`
	Sitemaps   struct {
		Read   int `json:"read"`
		Failed int `json:"failed"`
	} `json:"sitemaps"`
	// TotalURLs counts the distinct page URLs read; Filtered those outside baseUrl's host or
	// the include/exclude globs, which are never submitted.
	TotalURLs int                      `json:"totalUrls"`
	Filtered  int                      `json:"filtered"`
	Channels  map[string]*ChannelStats `json:"channels"`
	// Changes is what the run's content checks found; nil when no sitemap was checked by content.
	Changes *Changes `json:"changes,omitempty"`
	Errors  []string `json:"errors"`
	// Notes tell what is worth knowing but went as it should (a quota spent).
	Notes []string `json:"notes,omitempty"`
	// Stopped is set when the run ended before its end — its budget, a signal — with deliveries
	// left, or sitemaps read in part: the next run goes on where it stopped.
	Stopped bool `json:"stopped,omitempty"`
	// Stalled counts the runs in a row, this one included, that its budget stopped before they
	// made any progress: no sitemap read whole that the read in progress had not, no URL
	// accepted. Three in a row fail the site: its budget is too small to ever get on.
	Stalled int `json:"stalled,omitempty"`
	// URLs names the URLs the run answered, each with its outcome on a channel (docs/runs.md,
	// "The URLs of a run"): a run's page and `run --verbose` tell page by page what became of
	// them. The runner keeps at most a fixed number per channel and outcome; the counters count
	// them all. The states that keep records keep them apart from the record, or not at all.
	URLs []RunURL `json:"urls,omitempty"`
}

// Outcomes of a URL in a run (RunURL.Outcome): the words of the ChannelStats counters, and a
// removal notice the channel accepted.
const (
	URLSubmitted  = "submitted"
	URLFailed     = "failed"
	URLIneligible = "ineligible"
	URLRemoved    = "removed"
)

// URLKey is a channel and an outcome of a run's URLs: what they are counted by.
type URLKey struct{ Channel, Outcome string }

// URLOutcomes are the outcomes of a run's URLs in the order a run lists them: what needs a fix
// first, what went well last.
func URLOutcomes() []string { return []string{URLFailed, URLIneligible, URLSubmitted, URLRemoved} }

// RunURL is what became of one URL on one channel in a run: submitted (accepted), failed (Detail
// is the engine's answer), ineligible (Detail is the preflight's reason: "noindex", "status"…),
// or removed (a removal notice accepted).
type RunURL struct {
	Channel string `json:"channel"`
	URL     string `json:"url"`
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
}

// ChannelStats is what one channel did in a run.
type ChannelStats struct {
	Due       int `json:"due"`
	Submitted int `json:"submitted"`
	Failed    int `json:"failed"`
	// Skipped counts URLs already known on the channel — delivered, or taken as known, before —
	// and unchanged since: not due. Backlog counts those a first run's backlog held back, and
	// Baseline those the run's baseline lists unchanged: taken as known in this run, never sent
	// (docs/runs.md, "The execution record"). Neither is due: Due counts what remains to send.
	Skipped  int `json:"skipped"`
	Backlog  int `json:"backlog"`
	Baseline int `json:"baseline"`
	// Held counts due URLs held back by a quota: they go next time, and are no failure.
	Held int `json:"held"`
	// Left counts due URLs the run did not get to (stopped by its budget or a signal).
	Left int `json:"left"`
	// Ineligible counts due URLs a preflight held back (docs/runs.md, "Preflight"): not sent,
	// no failure; IneligibleBy counts them by reason ("noindex", "status"…).
	Ineligible   int            `json:"ineligible"`
	IneligibleBy map[string]int `json:"ineligibleBy,omitempty"`
	// ThrottledMS is how long, in milliseconds, the channel waited because an engine asked it to
	// (a 429, a 503 with Retry-After); waits of several endpoints at once count once.
	ThrottledMS int64                     `json:"throttledMs,omitempty"`
	Endpoints   map[string]*EndpointStats `json:"endpoints"`
	// Sample holds some of the due URLs of a dry run, to show what would be submitted.
	Sample []string `json:"sample,omitempty"`
}

// Answered counts the due URLs an engine or a preflight answered: submitted, failed or held back
// as not eligible — those a run's list of URLs names, up to its bound.
func (st *ChannelStats) Answered() int { return st.Submitted + st.Failed + st.Ineligible }

// WouldSend counts the due URLs a dry run would send: those no quota, preflight or end of the run
// would hold back.
func (st *ChannelStats) WouldSend() int { return st.Due - st.Held - st.Left - st.Ineligible }

// EndpointStats is what one endpoint of a channel answered in a run.
type EndpointStats struct {
	// Requests counts the batches sent to the endpoint, each once however many tries it took;
	// Accepted and Failed, how their last try ended (a request the run's end cut short is
	// neither).
	Requests int `json:"requests"`
	Accepted int `json:"accepted"`
	Failed   int `json:"failed"`
	// AvgResponseMS is the average latency of every try.
	AvgResponseMS float64 `json:"avgResponseMs"`
	// Retries counts the tries again after an answer that settled nothing (a 429, a 5xx, no
	// answer): waits, not failures.
	Retries int `json:"retries,omitempty"`
	// Statuses counts the answers of every try by HTTP status ("200", "429"), "none" when none came.
	Statuses map[string]int `json:"statuses,omitempty"`
}

// AddError keeps the first maxErrors errors of a run, each once.
func (r *Record) AddError(msg string) { r.Errors = addOnce(r.Errors, msg) }

// AddNote keeps the first maxErrors notes of a run, each once.
func (r *Record) AddNote(msg string) { r.Notes = addOnce(r.Notes, msg) }

func addOnce(list []string, msg string) []string {
	if len(list) >= maxErrors || slices.Contains(list, msg) {
		return list
	}
	return append(list, msg)
}
