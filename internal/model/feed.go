package model

import (
	"errors"
	"time"
)

// ErrUnusableFeed marks a feed state that cannot be made sense of: the feed is built again, as
// on a first run. Other errors reading it are passing (the database busy, out of reach).
var ErrUnusableFeed = errors.New("the feed's state is unusable")

// FeedItem is one entry of a site's feed: a page that appeared in its sitemaps.
type FeedItem struct {
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
