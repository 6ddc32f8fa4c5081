package feed

import (
	"context"
	"errors"
	"time"
)

// ErrUnusableState marks a feed state that cannot be made sense of: the feed is built again, as
// on a first run. Other errors reading it are passing (the database busy, out of reach).
var ErrUnusableState = errors.New("the feed's state is unusable")

// Item is one entry of a site's feed: a page that appeared in its sitemaps.
type Item struct {
	Hash        int64
	URL         string
	Title       string
	Description string
	// Published is the page's lastmod, or when it was first seen: the feed's order.
	Published time.Time
	FirstSeen time.Time
	// Titled is set when the title and description were read from the page itself, or when the
	// page answered for good without one: the title stays as it is.
	Titled bool
	// Retitle marks an item the feed has (its page could not be read before): only its title and
	// description may change, and an item pruned meanwhile is not added again.
	Retitle bool
}

// Store keeps each site's feed items. The SQL store implements it.
type Store interface {
	// FeedState tells whether the site's feed was built (its first run done) and when it last
	// changed. An error wrapping ErrUnusableState means the state must be built again.
	FeedState(ctx context.Context, site string) (built bool, changed time.Time, err error)
	// SaveFeedItems adds items, or improves the title and description of items already there
	// (their dates stay), and marks the feed changed at now when it did change.
	SaveFeedItems(ctx context.Context, site string, items []Item, now time.Time) error
	// MarkFeedBuilt records that the site's first run is done.
	MarkFeedBuilt(ctx context.Context, site string, now time.Time) error
	// FeedItems returns the newest limit items, newest first.
	FeedItems(ctx context.Context, site string, limit int) ([]Item, error)
	// PruneFeed drops items both beyond the newest keep and first seen before before; it returns
	// how many went.
	PruneFeed(ctx context.Context, site string, keep int, before, now time.Time) (int, error)
	// ResetFeedState forgets that the site's feed was built, so that it is built again as on a
	// first run; its items, and the pages it knew, stay.
	ResetFeedState(ctx context.Context, site string) error
}
