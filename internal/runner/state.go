package runner

import (
	"context"
	"time"
)

// Page is a URL present in a site's sitemaps during a run.
type Page struct {
	// Hash identifies the URL within its site; URLHash computes it.
	Hash    int64
	URL     string
	Lastmod time.Time // zero when the sitemap gives none
}

// DeliveryState is what the store knows of one URL on one channel.
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
	// Skipped marks URLs a channel sets aside without sending them (the pages a feed's first run
	// does not turn into items): recorded as delivered, counted as skipped, not in the statistics.
	Skipped bool
}

// Request is one request a channel made to one endpoint.
type Request struct {
	Channel  string
	Endpoint string
	URLs     int
	Accepted bool
	Status   int // HTTP status, 0 when no answer came
	Latency  time.Duration
}

// State is the store as a run needs it. The SQL store implements it; the core never imports the
// store, so that it builds for other targets (a Worker with KV) too.
type State interface {
	// AcquireLease takes the site's lease for holder until now+ttl, unless another holder's lease
	// is still valid; it reports whether it did and, if not, who holds it until when.
	AcquireLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (ok bool, other string, until time.Time, err error)
	// RenewLease extends holder's lease; it fails when the lease was lost.
	RenewLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) error
	// ReleaseLease gives the lease up.
	ReleaseLease(ctx context.Context, site, holder string) error

	// SyncCatalog records pages present in the site's sitemaps (new ones, changed lastmods) unless
	// dryRun, and returns the delivery state of each page on each channel, flattened: the state of
	// pages[i] on channels[c] is at i*len(channels)+c. It writes nothing when dryRun is set.
	SyncCatalog(ctx context.Context, site string, now time.Time, pages []Page, channels []string, dryRun bool) ([]DeliveryState, error)
	// URLs returns the URL of each hash (empty for hashes it does not know).
	URLs(ctx context.Context, site string, hashes []int64) ([]string, error)
	// RecordOutcome stores an outcome as it arrives, with the day's statistics, in one transaction.
	RecordOutcome(ctx context.Context, site string, now time.Time, o Outcome) error
	// RecordRequests adds requests to the day's per-endpoint statistics.
	RecordRequests(ctx context.Context, site string, now time.Time, reqs []Request) error

	// LastStarted returns when the site's latest run started; zero when it never ran.
	LastStarted(ctx context.Context, site string) (time.Time, error)
	// StartRun creates the execution record of a run and returns its id.
	StartRun(ctx context.Context, site, trigger string, now time.Time) (int64, error)
	// FinishRun stores the finished execution record.
	FinishRun(ctx context.Context, rec *Record) error
}
