// Package statetest holds the contract every state of sitepush keeps — the SQL store and the KV
// state of the Worker: one suite, run by each implementation's tests over its real storage, so
// that the runner, the channels and the API find the same behaviour on every target.
package statetest

import (
	"context"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// State is every port of a state, as both implementations offer them.
type State interface {
	runner.State
	feed.Store
	bing.QuotaStore
	LastStarted(ctx context.Context, site string) (time.Time, error)
	Leased(ctx context.Context, site string, now time.Time) (bool, error)
	ChannelDays(ctx context.Context, since time.Time, site string) ([]model.ChannelDay, error)
	LastSuccess(ctx context.Context, site, channel string) (time.Time, error)
}

// Backend opens states of one implementation.
type Backend struct {
	// Open returns a new, empty state.
	Open func(t *testing.T) State
	// Reopen returns another view of what s has written: another process of the SQL store, the
	// next invocation of the Worker (which writes what a run did when it finishes, or at Flush).
	// s is not used again.
	Reopen func(t *testing.T, s State) State
}

var (
	ctx = context.Background()
	t0  = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

// Run runs the contract.
func Run(t *testing.T, b Backend) {
	for _, tc := range []struct {
		name string
		test func(*testing.T, Backend)
	}{
		{"Catalogue", testCatalogue},
		{"Listed", testListed},
		{"CatalogueWrites", testCatalogueWrites},
		{"CatalogueLookups", testCatalogueLookups},
		{"FirstRunLoad", testFirstRunLoad},
		{"Outcomes", testOutcomes},
		{"RejectedAndUnsent", testRejectedAndUnsent},
		{"Unsent", testUnsent},
		{"Statistics", testStatistics},
		{"Leases", testLeases},
		{"Runs", testRuns},
		{"Quota", testQuota},
		{"BingTold", testBingTold},
		{"FeedItems", testFeedItems},
		{"FeedPrune", testFeedPrune},
		{"FeedReset", testFeedReset},
		{"FeedRetitle", testFeedRetitle},
		{"Memos", testMemos},
		{"UnfinishedMemos", testUnfinishedMemos},
		{"PendingDeliveries", testPendingDeliveries},
		{"Ineligible", testIneligible},
		{"Due", testDue},
		{"Removals", testRemovals},
		{"Rotation", testRotation},
		{"FirstRunRotation", testFirstRunRotation},
		{"PagesToCheck", testPagesToCheck},
		{"RecordChecks", testRecordChecks},
		{"SentOnOutcome", testSentOnOutcome},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, b) })
	}
}

// must fails the test on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
