package feed

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// Store keeps each site's feed items. The SQL store implements it.
type Store interface {
	// FeedState tells whether the site's feed was built (its first run done) and when it last
	// changed. An error wrapping model.ErrUnusableFeed means the state must be built again.
	FeedState(ctx context.Context, site string) (built bool, changed time.Time, err error)
	// SaveFeedItems adds items, or improves the title and description of items already there
	// (their dates stay), and marks the feed changed at now when it did change.
	SaveFeedItems(ctx context.Context, site string, items []model.FeedItem, now time.Time) error
	// MarkFeedBuilt records that the site's first run is done.
	MarkFeedBuilt(ctx context.Context, site string, now time.Time) error
	// FeedItems returns the newest limit items, newest first.
	FeedItems(ctx context.Context, site string, limit int) ([]model.FeedItem, error)
	// PruneFeed drops items both beyond the newest keep and first seen before before; it returns
	// how many went.
	PruneFeed(ctx context.Context, site string, keep int, before, now time.Time) (int, error)
	// ResetFeedState forgets that the site's feed was built, so that it is built again as on a
	// first run; its items, and the pages it knew, stay.
	ResetFeedState(ctx context.Context, site string) error
}
