package runner

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// State is the store as a run needs it: what every state means, whatever keeps it (the SQL
// store, the Worker's KV). What only some states do is an optional interface the runner asks a
// state for (NewSiteLoader, ResubmitSettler, LazyLease, RemovalLog), as it does of channels. The
// core never imports the store, so that it builds for other targets (a Worker with KV) too.
type State interface {
	// AcquireLease takes the site's lease for holder until now+ttl, unless another holder's
	// lease is still valid: then its error is a *model.LeaseHeld, which says who holds it until
	// when. A holder is one run: even it cannot take a lease twice.
	AcquireLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (model.Lease, error)

	// SyncCatalog records pages present in the site's sitemaps (new ones, changed lastmods) unless
	// dryRun, and returns the delivery state of each page on each channel, flattened: the state of
	// pages[i] on channels[c] is at i*len(channels)+c. A page without its URL (taken from a memo)
	// is only looked up. It writes nothing when dryRun is set. A page whose Check is set joins the
	// rotation of content checks, a suspect when it is new, when its lastmod moved (a page without
	// a lastmod never moves) or when it was not in the rotation; one without Check leaves it, and
	// keeps its content. Each state carries the page's Content and the channel's Sent.
	SyncCatalog(ctx context.Context, site string, now time.Time, pages []channel.Page, channels []string, dryRun bool) ([]model.DeliveryState, error)
	// SitemapMemos returns what runs remember of the site's sitemaps, by sitemap, without their
	// pages; SitemapPages the pages of one (nil when none are remembered), as they were saved.
	SitemapMemos(ctx context.Context, site string) (map[string]model.SitemapMemo, error)
	SitemapPages(ctx context.Context, site, sitemap string) ([]byte, error)
	// SaveSitemapMemos replaces what is remembered of the site's sitemaps with memos (none: it
	// forgets them all), in one transaction: a memo without Pages keeps the pages remembered
	// before.
	SaveSitemapMemos(ctx context.Context, site string, memos []model.SitemapMemo) error
	// PendingDeliveries returns the site's URLs whose last attempt on one of q.Failed failed and
	// those a channel of q.Resubmit last accepted at or before q.Before(). It may keep what
	// spares the next call work, unless q.DryRun.
	PendingDeliveries(ctx context.Context, site string, q model.PendingQuery) ([]model.Pending, error)
	// URLs returns the URL of each hash (empty for hashes it does not know): the queues of due
	// URLs read them back a batch at a time.
	channel.URLs
	// RecordOutcome stores an outcome as it arrives, with the day's statistics, in one transaction.
	// A URL delivered, rejected or taken as known without being sent (Unsent) takes the page's
	// content as the channel's Sent; a failed or ineligible one keeps its Sent: the channel has
	// not had anything new.
	RecordOutcome(ctx context.Context, site string, now time.Time, o channel.Outcome) error
	// RecordRequests adds requests to the day's per-endpoint statistics of requests, for the
	// dashboard, the API and the Worker's /status.
	RecordRequests(ctx context.Context, site string, now time.Time, reqs []channel.Request) error

	// The pages of sitemaps checked by content (channel.Page.Check) are in a rotation of content
	// checks (docs/runs.md, "What changed"): SyncCatalog puts them in it, suspects when new or
	// when their lastmod moved, and takes out those whose sitemap's lastmods are trusted now.

	// PagesToCheck returns at most limit of the site's pages in the rotation of content checks, suspects first,
	// then those checked longest ago (in the order of their check key), with their URLs, content and validators.
	PagesToCheck(ctx context.Context, site string, limit int) ([]model.ToCheck, error)
	// RecordChecks records what a run's content checks found (see model.PageCheck).
	RecordChecks(ctx context.Context, site string, checks []model.PageCheck) error

	// The URLs that left every sitemap of a site (MarkLeft, after a whole read) wait to be probed
	// by the runs after (LeftToProbe, RecordProbe): those that answer 404 or 410 are announced on
	// the channel that takes removal notices (channel.Selection.Removals).

	// MarkLeft records that the URLs of hashes left every sitemap of site at at: each waits to
	// be probed. A URL that left before starts afresh. Each leaves the rotation of content checks
	// (it joins it again, a suspect, if it comes back on a sitemap checked by content).
	MarkLeft(ctx context.Context, site string, hashes []int64, at time.Time) error
	// LeftToProbe returns at most limit of the URLs waiting to be probed, those that left first
	// first, with their URLs.
	LeftToProbe(ctx context.Context, site string, limit int) ([]channel.Page, error)
	// RecordProbe records the HTTP status a URL waiting to be probed answered at at: it waits
	// no more.
	RecordProbe(ctx context.Context, site string, hash int64, status int, at time.Time) error

	// Runs returns the site's execution records, newest first, at most limit: a run going (or
	// killed) has only its start.
	Runs(ctx context.Context, site string, limit int) ([]model.Record, error)
	// SaveRun stores an execution record. A record without an ID is a run starting, under the
	// site's lease: its site, trigger and start are stored, status running (a run of the site
	// still marked running died before it finished, and is closed as failed), and rec.ID is set.
	// A record with an ID is the run finished, stored whole.
	SaveRun(ctx context.Context, rec *model.Record) error
}

// NewSiteLoader is a state whose site's first run adds the site's pages without looking each
// up — the SQL store, where that is much faster than SyncCatalog. A state without it has every
// page looked up, on a first run too.
type NewSiteLoader interface {
	// CatalogEmpty reports whether the state holds no URL of the site.
	CatalogEmpty(ctx context.Context, site string) (bool, error)
	// AddPages records pages new to the site (one already there is left as it is) without
	// returning their state, unless dryRun.
	AddPages(ctx context.Context, site string, now time.Time, pages []channel.Page, dryRun bool) error
}

// ResubmitSettler is a state that keeps, for PendingDeliveries, what spares a run looking for
// URLs to resubmit (the SQL store's floors), and must be told when a run settled them.
type ResubmitSettler interface {
	// SettleResubmits is told, after a complete run that asked q of PendingDeliveries, that
	// every URL present it made due was answered.
	SettleResubmits(ctx context.Context, site string, q model.PendingQuery) error
}

// settleResubmits tells s, when it is a ResubmitSettler, that a complete run that asked q
// answered every URL present it made due.
func settleResubmits(ctx context.Context, s State, site string, q model.PendingQuery) error {
	if r, ok := s.(ResubmitSettler); ok {
		return r.SettleResubmits(ctx, site, q)
	}
	return nil
}

// LazyLease is a state whose runs write their lease only once they have work — the Worker's KV,
// where every write is billed and counted, so that a run that finds nothing to do writes nothing:
// its AcquireLease only reads whether another run holds the site. The runner calls Working
// before it hands a channel or a follower anything; an error (a *model.LeaseHeld when another
// run took the site meanwhile) and the run sends nothing. The state writes the lease itself
// before it writes what a run changed.
type LazyLease interface {
	// Working writes the lease of site's run, and its start, if they are not written yet.
	Working(ctx context.Context, site string) error
}

// RemovalLog is a state that keeps, for each URL's story, when a channel (IndexNow) accepted its
// removal notice: the SQL store. The Worker, which tells no URL's story, does not.
type RemovalLog interface {
	// RecordAnnounced records that a channel accepted the removal notices of hashes at at.
	RecordAnnounced(ctx context.Context, site string, hashes []int64, at time.Time) error
}
