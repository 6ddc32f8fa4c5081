package config

import (
	"fmt"
	"strings"
)

// channelSpec is what the configuration knows of one channel. Every rule of the package that
// differs by channel reads it from channelSpecs, so that a new channel is one entry there, its
// settings block, its defaults and its checks (docs/architecture.md, "What a change touches").
type channelSpec struct {
	// name is the key of the channel's block, and enabledAt and backlogAt the key paths of its
	// enabled and backlog settings: keyed derives them from the struct tags.
	name, enabledAt, backlogAt string
	// off says, in the words of the API (docs/api.md), that the channel is not on for a site.
	off string
	// enabled points at the block's enabled setting.
	enabled func(*Settings) *bool
	// preflights reports whether the channel checks each URL before it sends it (Site.Preflights).
	preflights func(*Settings) bool
	// backlog points at the channel's own backlog setting; nil when the channel's first run is
	// its own, which firstRun then explains.
	backlog  func(*Settings) *Backlog
	firstRun string
	// check checks the values of the channel's block (validate_channels.go), in a scope that may
	// inherit them: the defaults or a site.
	check func(*Settings, *problems)
	// credential is the secret the channel needs once it is on, nil when it needs none; require,
	// when set, checks what else only a whole site can satisfy (checkRequired).
	credential *Credential
	require    func(*Site, *problems)
	// setUp lists the settings whose being written, with the channel not turned on, is worth a
	// warning (Site.Warnings); offWarning is that warning. A channel with a credential is warned
	// about by it instead.
	setUp      []string
	offWarning string
}

// blockOf returns the key of the block that holds the setting at: "bing" of &s.Bing.Enabled.
func blockOf(at func(*Settings) any) string {
	block, _, _ := strings.Cut(settingKey(at), ".")
	return block
}

// channelSpecs are the channels, in the order a run delivers them.
var channelSpecs = keyed([]channelSpec{
	{
		off:        "IndexNow submission is not enabled for this site",
		enabled:    func(s *Settings) *bool { return &s.IndexNow.Enabled },
		preflights: func(s *Settings) bool { return s.IndexNow.Preflight },
		backlog:    func(s *Settings) *Backlog { return &s.IndexNow.Backlog },
		check:      func(s *Settings, p *problems) { checkIndexNow(&s.IndexNow, p) },
		credential: &indexNowKey,
		require:    requireIndexNow,
	},
	{
		off:        "Bing submission is not enabled for this site",
		enabled:    func(s *Settings) *bool { return &s.Bing.Enabled },
		preflights: func(s *Settings) bool { return s.Bing.Preflight },
		backlog:    func(s *Settings) *Backlog { return &s.Bing.Backlog },
		check:      func(s *Settings, p *problems) { checkBing(&s.Bing, p) },
		credential: &bingAPIKey,
	},
	{
		off: "The feed is not enabled for this site",
		// The feed checks a page whenever it fetches it for its title, so that a page no engine
		// would index never becomes an item.
		preflights: func(s *Settings) bool { return s.Feed.FetchTitles },
		enabled:    func(s *Settings) *bool { return &s.Feed.Enabled },
		check:      func(s *Settings, p *problems) { checkFeed(&s.Feed, p) },
		firstRun:   "the feed's first run is its own, and lists the newest " + settingKey(func(s *Settings) any { return &s.Feed.BaselineItems }) + " pages",
		setUp: []string{
			settingKey(func(s *Settings) any { return &s.Feed.Out }),
			settingKey(func(s *Settings) any { return &s.Feed.Title }),
			settingKey(func(s *Settings) any { return &s.Feed.URL }),
		},
		offWarning: "the feed is set up (feed.out, title or url) but feed.enabled is not: no feed is kept; add feed.enabled: true",
	},
})

// keyed fills in the names and key paths of the channels, from the struct tags, once.
func keyed(specs []channelSpec) []channelSpec {
	for i := range specs {
		c := &specs[i]
		c.name = blockOf(func(s *Settings) any { return c.enabled(s) })
		c.enabledAt = settingKey(func(s *Settings) any { return c.enabled(s) })
		if c.backlog != nil {
			c.backlogAt = settingKey(func(s *Settings) any { return c.backlog(s) })
		}
	}
	return specs
}

// Channels are the channels a site can have, in the order a run delivers them. Commands, the
// API and their messages take the names from here.
var Channels = channelNames()

func channelNames() []string {
	names := make([]string, len(channelSpecs))
	for i, c := range channelSpecs {
		names[i] = c.name
	}
	return names
}

// specOf returns the channel named name, or nil.
func specOf(name string) *channelSpec {
	for i := range channelSpecs {
		if channelSpecs[i].name == name {
			return &channelSpecs[i]
		}
	}
	return nil
}

// enabledKey is the key path of the channel's enabled setting: "feed.enabled".
func (c *channelSpec) enabledKey() string { return c.enabledAt }

// backlogKey is the key path of the channel's own backlog setting: "bing.backlog".
func (c *channelSpec) backlogKey() string { return c.backlogAt }

// ChannelOff says that a channel is not on for a site, in the words of the API (docs/api.md).
func ChannelOff(channel string) string {
	if c := specOf(channel); c != nil {
		return c.off
	}
	return fmt.Sprintf("There is no channel %q", channel)
}

// ChannelList writes the channels for a message, with the last joined by "or": "indexnow,
// bing or feed".
func ChannelList() string {
	return orList(Channels)
}

// orList joins words for a message, the last with "or": "a, b or c".
func orList(words []string) string {
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Enabled reports whether the site has channel turned on; "all" means any of them.
func (s *Site) Enabled(channel string) bool {
	for _, c := range channelSpecs {
		if (channel == "all" || channel == c.name) && *c.enabled(&s.Settings) {
			return true
		}
	}
	return false
}

// Preflights reports whether channel checks each URL before it sends it (docs/runs.md,
// "Preflight"): Bing and IndexNow when their preflight setting is on; the feed whenever it fetches
// its new pages (fetchTitles), so that a page no engine would index — a noindex draft — never
// becomes an item.
func (s *Site) Preflights(channel string) bool {
	c := specOf(channel)
	return c != nil && c.preflights(&s.Settings)
}
