package runner

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// State is the store as a run needs it. The SQL store implements it; the core never imports the
// store, so that it builds for other targets (a Worker with KV) too.
type State interface {
	// AcquireLease takes the site's lease for holder until now+ttl, unless another holder's
	// lease is still valid: then its error is a *model.LeaseHeld, which says who holds it until
	// when. A holder is one run: even it cannot take a lease twice.
	AcquireLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (model.Lease, error)

	// SyncCatalog records pages present in the site's sitemaps (new ones, changed lastmods) unless
	// dryRun, and returns the delivery state of each page on each channel, flattened: the state of
	// pages[i] on channels[c] is at i*len(channels)+c. A page without its URL (taken from a memo)
	// is only looked up. It writes nothing when dryRun is set.
	SyncCatalog(ctx context.Context, site string, now time.Time, pages []channel.Page, channels []string, dryRun bool) ([]model.DeliveryState, error)
	// CatalogEmpty reports whether the state holds no URL of the site; AddPages records pages
	// new to the site (one already there is left as it is) without returning their state,
	// unless dryRun.
	CatalogEmpty(ctx context.Context, site string) (bool, error)
	AddPages(ctx context.Context, site string, now time.Time, pages []channel.Page, dryRun bool) error
	// SitemapMemos returns what runs remember of the site's sitemaps, by sitemap, without their
	// pages; SitemapPages the pages of one (nil when none are remembered).
	SitemapMemos(ctx context.Context, site string) (map[string]model.SitemapMemo, error)
	SitemapPages(ctx context.Context, site, sitemap string) ([]byte, error)
	// SaveSitemapMemos replaces what is remembered of the site's sitemaps with memos (none: it
	// forgets them all), in one transaction: a memo without Pages keeps the pages remembered
	// before.
	SaveSitemapMemos(ctx context.Context, site string, memos []model.SitemapMemo) error
	// PendingDeliveries returns the site's URLs whose last attempt on one of q.Failed failed and
	// those a channel of q.Resubmit last accepted at or before q.Before(). It may keep what
	// spares the next call work, unless q.DryRun. SettleResubmits is told, after a complete run
	// that asked q, that every URL present it made due was answered.
	PendingDeliveries(ctx context.Context, site string, q model.PendingQuery) ([]model.Pending, error)
	SettleResubmits(ctx context.Context, site string, q model.PendingQuery) error
	// URLs returns the URL of each hash (empty for hashes it does not know): the queues of due
	// URLs read them back a batch at a time.
	channel.URLs
	// RecordOutcome stores an outcome as it arrives, with the day's statistics, in one transaction.
	RecordOutcome(ctx context.Context, site string, now time.Time, o channel.Outcome) error
	// RecordRequests adds requests to the day's per-endpoint statistics.
	RecordRequests(ctx context.Context, site string, now time.Time, reqs []channel.Request) error

	// Runs returns the site's execution records, newest first, at most limit: a run going (or
	// killed) has only its start.
	Runs(ctx context.Context, site string, limit int) ([]model.Record, error)
	// SaveRun stores an execution record. A record without an ID is a run starting, under the
	// site's lease: its site, trigger and start are stored, status running (a run of the site
	// still marked running died before it finished, and is closed as failed), and rec.ID is set.
	// A record with an ID is the run finished, stored whole.
	SaveRun(ctx context.Context, rec *model.Record) error
}
