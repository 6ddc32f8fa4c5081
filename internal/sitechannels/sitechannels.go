// Package sitechannels builds the channels of a site, for every place that runs one: the commands,
// serve, the Worker. Adding a channel adds it here.
package sitechannels

import (
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/changes"
	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/channel/indexnow"
	"github.com/sitepush/sitepush/internal/channel/preflight"
	"github.com/sitepush/sitepush/internal/config"
)

// State is what the channels keep in the state besides deliveries: Bing's quota, the feed.
type State interface {
	bing.QuotaStore
	feed.Store
}

// For returns site's enabled channels among those selected ("all" or one name), in the order a
// run delivers them: IndexNow, then Bing, which never holds IndexNow up, then the feed. start is
// when the run starts: Bing counts its quota on that UTC day. The channels that preflight
// (config.Site.Preflights) fetch each URL before they send it, sharing one fetch a page (page
// fetches, which the Worker's client refuses once its invocation's last subrequests are left:
// channel.PageFetch).
func For(site *config.Site, only string, client *http.Client, userAgent string, st State, start time.Time) []channel.Channel {
	var out []channel.Channel
	take := func(name string) bool { return site.Enabled(name) && (only == "all" || only == name) }
	var pc *preflight.Checker
	checker := func() *preflight.Checker {
		if pc == nil {
			pc = preflight.New(client, userAgent)
		}
		return pc
	}
	if take("indexnow") {
		ch := indexnow.New(site, client, userAgent)
		if site.Preflights("indexnow") {
			ch.Preflight(checker())
		}
		out = append(out, ch)
	}
	if take("bing") {
		ch := bing.New(site, client, userAgent, st, start)
		if site.Preflights("bing") {
			ch.Preflight(checker())
		}
		out = append(out, ch)
	}
	if take("feed") {
		ch := feed.New(site, client, userAgent, st, start)
		if site.Preflights("feed") {
			ch.Preflight(checker())
		}
		out = append(out, ch)
	}
	return out
}

// OnCrawl tells onCrawl of each crawl the Bing channel among chans first sees after a
// submission (bing.Channel.OnCrawl), for /metrics.
func OnCrawl(chans []channel.Channel, onCrawl func(site string, took time.Duration)) []channel.Channel {
	for _, ch := range chans {
		if b, ok := ch.(*bing.Channel); ok {
			b.OnCrawl = onCrawl
		}
	}
	return chans
}

// Pages returns what reads a site's pages for the content checks of a run through chans
// (runner.Runner.Pages, docs/runs.md "What changed"): the site's build on disk when changes.dir
// names it, else the fetches the preflight of chans shares — one fetch a page a run for both —
// or, when none preflights, fetches of its own with client as userAgent, under the same rules.
func Pages(client *http.Client, userAgent string) func(*config.Site, []channel.Channel) channel.PageReader {
	return func(site *config.Site, chans []channel.Channel) channel.PageReader {
		if site.Changes.Dir != "" {
			return changes.NewDirReader(site.Changes.Dir)
		}
		for _, ch := range chans {
			if p, ok := ch.(interface{ Preflighted() *preflight.Checker }); ok && p.Preflighted() != nil {
				return p.Preflighted()
			}
		}
		return preflight.New(client, userAgent)
	}
}
