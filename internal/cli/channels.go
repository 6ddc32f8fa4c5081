package cli

import (
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/sitemap"
	"github.com/sitepush/sitepush/internal/store"
)

// channels returns the site's enabled channels among those selected, in order: IndexNow, then
// Bing, which never holds IndexNow up, then the feed.
func channels(site *config.Site, only string, client *http.Client, userAgent string, st *store.Store) []channel.Channel {
	var out []channel.Channel
	take := func(name string) bool { return site.Enabled(name) && (only == "all" || only == name) }
	if take("indexnow") {
		out = append(out, indexnow.New(site, client, userAgent))
	}
	if take("bing") {
		out = append(out, bing.New(site, client, userAgent, st, time.Now()))
	}
	if take("feed") {
		out = append(out, feed.New(site, client, userAgent, st, time.Now()))
	}
	return out
}

// httpClient is the client every request to engines and sites goes through.
func httpClient() *http.Client { return sitemap.NewClient(16) }
