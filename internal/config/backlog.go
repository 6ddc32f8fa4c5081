package config

import (
	"fmt"
	"time"
)

// The words of the backlog setting; a duration is the third form.
const (
	BacklogAll  = "all"
	BacklogNone = "none"
)

// Backlog says what IndexNow and Bing get of the URLs a site already has when they first run for
// it: all (the default), none (every URL becomes known, and only later changes go out, as the
// IndexNow FAQ asks), or those whose lastmod is within a duration ("720h").
type Backlog string

// parse returns the duration of a backlog written as one; all is -1, none 0. field names the
// setting in the message.
func (b Backlog) parse(field string) (time.Duration, error) {
	switch b {
	case "", BacklogAll:
		return -1, nil
	case BacklogNone:
		return 0, nil
	}
	d, err := time.ParseDuration(string(b))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be all, none or a duration like 720h (the lastmods a first run sends), got %q", field, string(b))
	}
	return d, nil
}

// backlogChannels are the channels the backlog setting applies to: those with a backlog setting
// of their own (channelSpec.backlog). The feed's first run is its own (feed.baselineItems).
var backlogChannels = func() []string {
	var names []string
	for _, c := range channelSpecs {
		if c.backlog != nil {
			names = append(names, c.name)
		}
	}
	return names
}()

// channelBacklog returns the channel's own backlog setting, "" when it has none (and for the feed).
func (s *Settings) channelBacklog(channel string) Backlog {
	if c := specOf(channel); c != nil && c.backlog != nil {
		return *c.backlog(s)
	}
	return ""
}

// checkBacklogs parses the backlog settings: the site's, and each channel's, which is the
// site's when not given. It returns each channel's, by name.
func checkBacklogs(s *Settings, p *problems) map[string]time.Duration {
	site, err := s.Backlog.parse(keyBacklog)
	if err != nil {
		p.fieldf(keyBacklog, "%v", err)
	}
	out := map[string]time.Duration{}
	for _, c := range channelSpecs {
		if c.backlog == nil {
			continue
		}
		out[c.name] = site
		if own := *c.backlog(s); own != "" {
			field := c.backlogKey()
			if out[c.name], err = own.parse(field); err != nil {
				p.fieldf(field, "%v", err)
			}
		}
	}
	return out
}

// layerBacklog makes a site's own backlog set both channels, as it always did: a channel's
// backlog inherited from the defaults gives way to the site's backlog, unless the site gives
// that channel's too. own holds the keys the site wrote itself (nil: every value is its own).
func (s *Site) layerBacklog(own keySet) {
	if !own.has(keyBacklog) {
		return
	}
	for _, c := range channelSpecs {
		if c.backlog != nil && !own.has(c.backlogKey()) {
			*c.backlog(&s.Settings) = ""
		}
	}
}

// BacklogOf returns the backlog setting of channel's first run for the site, for messages: the
// channel's own, else the site's; all for the feed, whose first run is its own.
func (s *Site) BacklogOf(channel string) Backlog {
	switch b := s.channelBacklog(channel); {
	case s.BacklogAll(channel):
		return BacklogAll
	case b != "":
		return b
	}
	return s.Backlog
}

// FirstRunSends reports whether channel's first run for the site sends a URL with this lastmod
// (zero when the sitemap gives none), at now: by the channel's backlog setting.
func (s *Site) FirstRunSends(channel string, lastmod, now time.Time) bool {
	d, ok := s.compiled.backlog[channel]
	switch {
	case !ok || d < 0:
		return true
	case d == 0 || lastmod.IsZero():
		return false
	}
	return !lastmod.Before(now.Add(-d))
}

// BacklogAll reports whether channel's first run for the site sends every URL: its setting is
// all, as the feed's always is.
func (s *Site) BacklogAll(channel string) bool {
	d, ok := s.compiled.backlog[channel]
	return !ok || d < 0
}
