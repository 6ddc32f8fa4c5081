package answer

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/config"
)

// Feed is a site's feed ready to serve, with its validators.
type Feed struct {
	Body    []byte
	ETag    string
	Changed time.Time
}

// RenderFeed renders a site's feed from its state; nil when the site has none (its feed off and
// no item ever made). configured is when the site's configuration last changed: a feed changes
// with its items and with its title and maxItems.
func RenderFeed(ctx context.Context, st State, site *config.Site, configured time.Time) (*Feed, error) {
	items, err := st.FeedItems(ctx, site.ID, site.Feed.MaxItems)
	if err != nil {
		return nil, err
	}
	_, changed, err := st.FeedState(ctx, site.ID)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 && !site.Feed.Enabled {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := feed.Render(&buf, site, items, changed, feed.Generator()); err != nil {
		return nil, err
	}
	if configured.After(changed) {
		changed = configured
	}
	return &Feed{Body: buf.Bytes(), ETag: fmt.Sprintf(`"%016x"`, xxhash.Sum64(buf.Bytes())), Changed: changed}, nil
}

// Serve answers with the feed, its ETag and Last-Modified: 304 to a reader that has it.
func (f *Feed) Serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	w.Header().Set("ETag", f.ETag)
	w.Header().Set("Cache-Control", "public, max-age=60")
	http.ServeContent(w, r, "", f.Changed, bytes.NewReader(f.Body))
}
