package model

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Lease is a run's hold on a site, from a state's AcquireLease: one run of a site at a time. It
// is declared here, not by the runner that uses it, because a state returns it and the SQL store
// does not import the runner.
type Lease interface {
	// Renew extends the lease to now+ttl at least (a state may keep it longer, and write it less
	// often); ErrLeaseLost when another run holds the site now.
	Renew(ctx context.Context, now time.Time, ttl time.Duration) error
	// Release gives the lease up; it does nothing when the lease was lost.
	Release(ctx context.Context) error
}

// ErrLeaseLost is returned by a Lease's Renew when another run holds the site's lease now.
var ErrLeaseLost = errors.New("the site's lease was lost to another run")

// LeaseHeld is AcquireLease's error when another run holds the site's lease: who, until when.
type LeaseHeld struct {
	Holder string
	Until  time.Time
}

func (e *LeaseHeld) Error() string {
	return fmt.Sprintf("the site's lease is held by %s until %s", e.Holder, e.Until.Format(time.RFC3339))
}

// DeliveryState is what the state knows of one URL on one channel.
type DeliveryState struct {
	// Known is false when the URL was never attempted on the channel.
	Known bool
	// Lastmod is the lastmod last delivered (zero when none was, or the URL had none).
	Lastmod time.Time
	// DeliveredAt is when the channel last accepted the URL (zero when it never did).
	DeliveredAt time.Time
	// Failed is set when the last attempt failed.
	Failed bool
	// Failures counts the attempts that failed in a row (0 unless Failed).
	Failures int
	// Unsent says why the channel has the URL as known though it was never sent (UnsentBacklog,
	// UnsentBaseline); "" when its last outcome was an attempt. A URL a user chooses to submit is
	// sent even so, and resubmitAfter never brings it back: only a change does. TakenAt is when it
	// was taken as known: a lastmod the sitemap starts to give is compared with it.
	Unsent  string
	TakenAt time.Time
	// Ineligible is set when a preflight held the URL back at its last attempt (docs/runs.md,
	// "Preflight"): Lastmod is then the lastmod checked, and CheckedAt when it was checked.
	Ineligible bool
	CheckedAt  time.Time
	// Content is the page's fingerprint at its last content check (zero: never checked), and
	// Sent the fingerprint the channel last delivered (zero: none recorded) — the page's
	// content at its check before the delivery. A page whose Content is not Sent changed since
	// the channel had it (docs/runs.md, "What changed").
	Content, Sent uint64
	// Listed is the page's lastmod in its sitemap as the catalogue last recorded it (zero when
	// none), whatever a channel was sent: it tells whether a sitemap's lastmods moved together or
	// one by one when its memo is gone (docs/runs.md, "What changed"). A catalogue's fact, not a
	// delivery's: PendingDeliveries leaves it zero.
	Listed time.Time
}

// Why a channel has a URL as known though it never sent it (DeliveryState.Unsent,
// channel.Outcome.Unsent): the words the state keeps as the URL's outcome, and the execution
// record counts the URLs by (ChannelStats.Backlog, ChannelStats.Baseline).
const (
	// UnsentBacklog: a first run's backlog held it back — the backlog setting left it out, or a
	// feed's first run made no item of it.
	UnsentBacklog = "backlog"
	// UnsentBaseline: the run's baseline listed it unchanged (run --baseline): it was there
	// before the deploy.
	UnsentBaseline = "baseline"
)

// NotSent tells why the channel has a URL it did not send (Unsent), in the words every surface
// uses — a URL's story in `sitepush inspect`, the API and the dashboard: "never sent: older than
// the first run's backlog"; "" for a URL whose last outcome was an attempt.
func (st DeliveryState) NotSent() string {
	why := "older than the first run's backlog"
	if st.Unsent == UnsentBaseline {
		why = "unchanged since the baseline (run --baseline)"
	}
	switch {
	case st.Unsent == "":
		return ""
	case !st.DeliveredAt.IsZero(): // delivered before, then listed unchanged by a baseline
		return "not sent again: " + why
	}
	return "never sent: " + why
}

// ChannelDay is what a channel did with URLs on one UTC day: the URLs whose delivery ended, how
// many were accepted, and how many failed.
type ChannelDay struct {
	Day        string // YYYY-MM-DD
	Channel    string
	Total      int
	Successful int
	Failed     int
}

// SiteReads are what every site's status needs from the state, read for all sites at once: a
// store that can (the SQL store) answers the dashboard's overview and GET /status in a few
// queries, not a few per site. Keyed by site id.
type SiteReads struct {
	// Leased holds the sites a run holds the lease of.
	Leased map[string]bool
	// LastRun is each site's latest execution record.
	LastRun map[string]*Record
	// Today is each site's URL-level statistics of today, per channel.
	Today map[string]map[string]ChannelDay
	// LastSuccess is when each channel of each site last accepted a URL.
	LastSuccess map[string]map[string]time.Time
	// Bing is each site's Bing quota of today.
	Bing map[string]BingDay
}

// BingDay is what the state keeps of a site's Bing quota on one UTC day: the URLs reserved or
// sent, whether Bing refused a submission for quota, and Bing's own latest answer of the day
// (GetUrlSubmissionQuota) with what was used when it answered — what went since lowers it.
type BingDay struct {
	Used int
	Full bool
	// Told is set once Bing answered that day; BingLeft is its latest answer, UsedWhenTold what
	// Used was then.
	Told         bool
	BingLeft     int
	UsedWhenTold int
}

// SitemapMemo is what a run remembers of one sitemap of pages it read whole, once what it found
// there was settled on every channel — or, Unfinished, while the read of the site's sitemaps
// goes on over several runs: how to tell that the file did not change, and its pages.
type SitemapMemo struct {
	Sitemap string
	// ETag and LastModified are the server's validators; Size and ModTime (Unix ns) a local
	// file's; Hash the xxHash64 of its bytes after decompression.
	ETag, LastModified string
	Size, ModTime      int64
	Hash               uint64
	// Scope names the filter and the channels the pages were settled for: a run of another
	// scope does not use the memo.
	Scope string
	// Unfinished marks the memo of a sitemap read whole by a read of the site's sitemaps that
	// has not reached its end yet (a run's budget cut it short): the runs after take its pages
	// from here instead of reading it again, and read on from the sitemaps not yet read, until
	// one reaches the end. Its pages are not settled: each is looked up in the state.
	Unfinished bool
	// Unsettled marks the memo of a sitemap read whole by a read that reached its end while not
	// every URL due was answered (a quota held some back): its pages say which URLs the sitemaps
	// list — for a URL's story, and for the URLs that leave them — but not that they are no news,
	// so the next run reads the sitemap again and looks each page up. A memo is settled when
	// neither this nor Unfinished is set.
	Unsettled bool
	// Index marks the memo, unfinished, of an index that the unfinished read read whole with
	// every sitemap below it: it has no pages, and is not read again until the read ends.
	Index bool
	// URLs and Filtered count the entries in scope and those the filter left out.
	URLs, Filtered int
	// Pages are the pages in scope, in bytes the runner writes and reads (its page format): a
	// state keeps them as they are. Reading memos leaves it nil: SitemapPages reads it. Saving a
	// memo with nil Pages keeps the pages saved before.
	Pages []byte
}

// Pending is a URL's delivery state on a channel that makes it due whatever its sitemap says: its
// last attempt failed, or it was delivered long enough ago to be sent again (resubmitAfter).
type Pending struct {
	Hash    int64
	Channel string
	State   DeliveryState
}

// PendingQuery asks a state for the URLs that may be due whatever their sitemap says: a filter
// by the fields of their delivery states, which the runner sets. A state may return more than
// it asks for, never fewer; the runner decides what is due (runner.DueReason), and the contract
// in internal/statetest (due.go) holds every state to it.
type PendingQuery struct {
	// Failed names the channels whose URLs whose last attempt failed are asked for; Resubmit
	// those whose URLs accepted ResubmitAfter or longer before Now are (not a channel that
	// announces a URL once: the feed).
	Failed, Resubmit []string
	Now              time.Time
	ResubmitAfter    time.Duration
	// DryRun: the state may read, and write nothing.
	DryRun bool
	// Recheck asks, by channel, for the URLs a preflight held back (outcome ineligible) checked
	// at or before the time it gives: due to be checked again (docs/runs.md, "Preflight").
	Recheck map[string]time.Time
}

// Before is the time at or before which a URL accepted is due again; zero when none is.
func (q PendingQuery) Before() time.Time {
	if q.ResubmitAfter <= 0 || len(q.Resubmit) == 0 {
		return time.Time{}
	}
	return q.Now.Add(-q.ResubmitAfter)
}

// BingCrawl is what Bing's GetUrlInfo said of a URL submitted through IndexNow or Bing, when
// sitepush last asked: whether and when Bing crawled it, and how long after its submission.
type BingCrawl struct {
	Hash int64
	// LastCrawled is when Bing last crawled the URL; zero when it never did.
	LastCrawled time.Time
	// HTTPStatus is the status Bing got at that crawl (0 when it did not say).
	HTTPStatus int
	// Discovered is when Bing first learnt of the URL; zero when it did not say.
	Discovered time.Time
	// CheckedAt is when Bing was asked.
	CheckedAt time.Time
	// Submitted is the URL's newest submission (IndexNow or Bing) when Bing was asked: the
	// crawl is measured from it.
	Submitted time.Time
}

// Crawled reports whether Bing crawled the URL after its submission: it is not asked about
// again until the URL is submitted anew.
func (c BingCrawl) Crawled() bool { return c.LastCrawled.After(c.Submitted) }

// ToCrawl is the time from the submission to the crawl; ok is false when no crawl after the
// submission is known.
func (c BingCrawl) ToCrawl() (d time.Duration, ok bool) {
	if !c.Crawled() {
		return 0, false
	}
	return c.LastCrawled.Sub(c.Submitted), true
}

// Submission is a URL submitted through IndexNow or Bing, its newest submission at Submitted:
// one to ask Bing about.
type Submission struct {
	Hash      int64
	URL       string
	Submitted time.Time
}
