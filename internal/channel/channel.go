// Package channel is the contract between a run and its channels — IndexNow, Bing, the feed, and
// whatever comes next: the Channel a run delivers through, the Reporter it reports to, the Queue
// of due URLs it reads, and the words they share (Due, Outcome, Request, Page). It decides
// nothing about what is due or how a run goes: the runner does. A channel imports this package,
// never the runner, so that it can be built and tested alone, with a queue in memory.
package channel

import (
	"context"
	"errors"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// Channel is one destination of new and changed URLs. A channel reads its due URLs from the
// queue a batch at a time, and reports every request and every final outcome as it happens; the
// run records them at once, so a run that is killed loses nothing that was answered.
type Channel interface {
	// Name is the channel's name in configuration, records and statistics.
	Name() string
	// Deliver sends the URLs of q. When ctx ends (the run's budget, a signal), it starts no new
	// request and abandons waits; requests already sent are let finish (RequestContext) and
	// reported. URLs it never reports stay due for the next run.
	Deliver(ctx context.Context, q *Queue, r Reporter) error
}

// Reporter receives what a channel does, as it does it. Its methods are safe for concurrent use.
type Reporter interface {
	// Requested tells of one request to one endpoint.
	Requested(Request)
	// Finished tells the final outcome of some URLs; it returns once that is recorded.
	Finished(Outcome) error
	// HeldBack tells of n due URLs the channel did not send because a quota is spent — why names
	// the quota and when it is back — and are no failure. The run says what becomes of them (a
	// run of the sitemaps keeps them due; chosen URLs are kept for no run).
	HeldBack(channel string, n int, why string)
	// Failed tells of a failure of the channel as a whole (a rejected API key): the URLs it did
	// not get to stay due, and the run counts as failed in part.
	Failed(channel, msg string)
	// Noted tells of something worth knowing that is no failure (a state rebuilt).
	Noted(channel, msg string)
	// Waiting tells of a wait an engine asked for (a 429, a 503 with Retry-After) as it starts:
	// the channel holds its requests for d. cause names the answer and the endpoint, in the same
	// words for every wait of one cause ("HTTP 429 from https://…"), so that the run can note
	// each cause once, however often it comes. A pause that several workers wait out together is
	// told once; a pause not waited for (it would outlast the run's budget) is not told.
	Waiting(channel, cause string, d time.Duration)
	// Later says, in the words a message ends with, what becomes of what the channel leaves
	// undone (URLs that failed for now): the run's state decides whether a later run takes it up.
	Later() model.Later
}

// Selection says which URLs a channel wants due, where it differs from the rule every channel
// gets (docs/runs.md, "What is due"): a URL never delivered, changed, due again after
// resubmitAfter, or failed; and what the channel can do besides delivering them, which the run
// asks of it by these fields, never by its name.
type Selection struct {
	// OnlyNew makes due only URLs the channel never had, and those whose last attempt failed: a
	// newer lastmod or resubmitAfter does not bring a URL back (a feed announces new pages once).
	OnlyNew bool
	// Newest asks for the newest n pages present in the sitemaps, due or not: Queue.Newest.
	Newest int
	// FirstRun says that the channel will deliver only the Newest pages in this run and take
	// every other due URL as known (reporting it Unsent, its backlog): what a dry run then shows.
	FirstRun bool
	// Ranked says that the channel orders its due URLs with every page in hand (Bing's quota
	// goes newest first): a read of the sitemaps over several runs hands them to it from the run
	// that reaches the end of the read, not as it goes.
	Ranked bool
	// Removals says that the channel takes removal notices (Due.Removal): the run probes the
	// URLs that left every sitemap, and queues on it those the site answers 404 or 410 for.
	Removals bool
}

// Selective is a Channel that selects its due URLs itself, or can do more than deliver them. The
// run asks it once, before it reads the sitemaps; a Channel that is not Selective gets the rule
// every channel gets, and is asked nothing else.
type Selective interface {
	Selection(ctx context.Context) Selection
}

// Previewer is a Channel that orders its URLs or holds some back (a quota): a dry run asks it
// what Deliver would do now, without sending anything or spending any quota.
type Previewer interface {
	// Preview puts q in the order Deliver would send it and returns how many of its URLs Deliver
	// would hold back now; it tells r what Deliver would tell of it (a refused key, a note).
	Preview(ctx context.Context, q *Queue, r Reporter) (held int)
}

// Idle is a Channel that has work to do in a run where nothing is due on it, which Deliver
// is not called for: the feed writes feed.out again when the file is gone.
type Idle interface {
	Idle(ctx context.Context, r Reporter)
}

// Page is a URL present in a site's sitemaps during a run.
type Page struct {
	// Hash identifies the URL within its site in the state.
	Hash    int64
	URL     string
	Lastmod time.Time // zero when the sitemap gives none
	// Check is set when the page's sitemap is checked by content (docs/runs.md, "What changed"):
	// the state puts it in the rotation of content checks, a suspect when it is new or its
	// lastmod moved.
	Check bool
}

// PageReader reads a site's pages for a run's content checks (docs/runs.md, "What changed"):
// over HTTP, sharing each fetch with the preflight (preflight.Checker), or from the site's
// build on disk (changes.dir).
type PageReader interface {
	// ReadPage reads u, conditionally on v when it holds validators. An error says why the page
	// could not be read (its answer, a timeout, a file not there): the page stays a suspect.
	ReadPage(ctx context.Context, u string, v model.Validators) (model.PageRead, error)
}

// PageExpecter is a PageReader that fetches pages for others too (the preflight): told which
// pages a run will read after its channels, it reads them whole when a channel has it fetch one,
// so that a page is fetched once a run.
type PageExpecter interface {
	Expect(urls []string)
}

// Due is a URL due on a channel.
type Due struct {
	Hash    int64
	URL     string
	Lastmod time.Time
	// Retry is set when the URL's last attempt on the channel failed.
	Retry bool
	// Failures counts the attempts that failed in a row before this run (0 unless Retry).
	Failures int
	// Removal marks a removal notice: the URL left the sitemaps and the site answers 404 or 410
	// for it, which is why it is sent. No preflight checks it: its verdict would hold it back for
	// the very answer it is sent for.
	Removal bool
}

// Outcome is the final result of delivering some URLs on a channel in this run.
type Outcome struct {
	Channel string
	URLs    []Due
	// Delivered is set when the channel accepted the URLs (on IndexNow: at least one endpoint did).
	Delivered bool
	// Err is why they were not delivered: the cause and the fix.
	Err string
	// Rejected marks URLs the channel refused for good (an invalid URL on Bing): they are not
	// retried until they change, and count as failed.
	Rejected bool
	// Unsent, when set, marks URLs taken as known without being sent, and says why
	// (model.UnsentBacklog: a first run's backlog, the pages a feed's first run makes no items of;
	// model.UnsentBaseline): recorded with no delivery and no attempt, counted by that word, not
	// in the statistics.
	Unsent string
	// Preflight is what a preflight found of the URLs in this run before they were to be sent
	// (internal/channel/preflight); nil when none looked. An outcome whose Preflight has a
	// Reason is one of URLs held back as ineligible: not sent, no failure of the channel.
	Preflight *Preflight
}

// Ineligible reports whether the outcome is of URLs a preflight held back.
func (o Outcome) Ineligible() bool { return o.Preflight != nil && o.Preflight.Reason != "" }

// Preflight is the verdict of a fetch of a URL before a channel sends it: whether the engine
// would index the page, and if not, why, in words a site owner can act on.
type Preflight struct {
	// Reason is "" when the page is eligible, else one of the Not… reasons.
	Reason string
	// Detail names what was found: "HTTP 404", the redirect's target, the canonical URL.
	Detail string
	// Again marks a verdict that may change by itself (a 5xx, no answer): the URL stays due and
	// is checked again at the next run.
	Again bool
}

// ErrNoFetch is what a client answers a page fetch it keeps its last requests from (the Worker's,
// keeping an invocation's last subrequests for its engines): the page waits for a later run.
var ErrNoFetch = errors.New("no more page fetches in this run: the requests left are kept for the engines")

type pageFetchKey struct{}

// PageFetch marks ctx as a page fetch's besides a run's sitemaps and engines — a preflight, a
// removal probe — which a client may refuse with ErrNoFetch (IsPageFetch).
func PageFetch(ctx context.Context) context.Context {
	return context.WithValue(ctx, pageFetchKey{}, true)
}

// IsPageFetch reports whether ctx is a page fetch's (PageFetch).
func IsPageFetch(ctx context.Context) bool { v, _ := ctx.Value(pageFetchKey{}).(bool); return v }

// Why a preflight holds a URL back (Preflight.Reason).
const (
	NotStatus    = "status"    // the page answered neither 2xx nor a redirect (404, 410, 5xx, none)
	NotRedirect  = "redirect"  // the page redirects elsewhere
	NotNoindex   = "noindex"   // a robots meta tag or X-Robots-Tag header says noindex
	NotCanonical = "canonical" // its canonical link names another URL
	NotRobots    = "robots"    // robots.txt disallows it for the engine's crawler
)

// ForNow is what a state keeps as the last error of a URL a verdict that may change by itself
// (Again) held back: the states write it alike.
func (p Preflight) ForNow() string {
	return "not eligible for now (" + p.Detail + "); checked again at the next run"
}

// Fix says what a site owner can do about a preflight's reason, for the dashboard and the
// URL's story.
func (p Preflight) Fix() string {
	switch p.Reason {
	case NotStatus:
		if p.Again {
			return "the site failed to answer for now; the URL is checked again at the next run"
		}
		return "the page does not answer 200: remove it from the sitemap, or make it answer 200"
	case NotRedirect:
		return "list the redirect's target in the sitemap instead of this URL"
	case NotNoindex:
		return "remove noindex from the page (its robots meta tag or X-Robots-Tag header), or remove it from the sitemap"
	case NotCanonical:
		return "list the canonical URL in the sitemap instead, or make the page name itself as canonical"
	case NotRobots:
		return "robots.txt disallows the page for the engine's crawler: allow it, or remove it from the sitemap"
	}
	return ""
}

// Request is one try of a request a channel made to one endpoint: a request is tried again after
// a 429 or a 5xx, and each try is told of.
type Request struct {
	Channel  string
	Endpoint string
	URLs     int
	Accepted bool
	Status   int // HTTP status, 0 when no answer came
	Latency  time.Duration
	// Retry is set when the request is a try again of the one before it, with the same URLs.
	Retry bool
	// Again is set when the answer settled nothing — the engine asked to wait (429) or failed
	// for now (5xx, no answer) — and the same URLs are to be tried again: after the wait in this
	// run or, when the run ends first, in the next. Such a try is a wait, neither accepted nor
	// failed: a request counts once, as its last try ends it.
	Again bool
}

// What a try of a request came to (Request.Outcome).
const (
	TryAccepted = "accepted" // the endpoint took the URLs
	TryFailed   = "failed"   // it refused them, or it was the request's last try
	TryRetried  = "retried"  // a wait: the URLs are tried again (Again)
)

// Outcome says what the try came to, as every count of requests counts it: a try that is a
// wait counts neither accepted nor failed. A request counts once, at its first try (not Retry).
func (r Request) Outcome() string {
	switch {
	case r.Accepted:
		return TryAccepted
	case r.Again:
		return TryRetried
	}
	return TryFailed
}

// Counts is what a try adds to its endpoint's daily statistics: a request unless it is a try
// again (Retry), and its URLs accepted or failed — neither when it is a wait.
func (r Request) Counts() (requests, accepted, failed int) {
	if !r.Retry {
		requests = 1
	}
	switch r.Outcome() {
	case TryAccepted:
		accepted = r.URLs
	case TryFailed:
		failed = r.URLs
	}
	return requests, accepted, failed
}
