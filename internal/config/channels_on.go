package config

import (
	"errors"
	"fmt"
)

// NothingOn is the problem of a site with no channel on: a run of it would read its sitemaps and
// send nothing, and say it did well. The commands, serve and the Worker refuse such a site as a
// configuration error; the parser accepts it, as a configuration being written.
func (s *Site) NothingOn() error {
	if s.Enabled("all") {
		return nil
	}
	return fmt.Errorf("site %q: no channel is on, so a run would read its sitemaps and send nothing: turn one on, "+
		"like indexnow: {enabled: true, key: …}, bing: {enabled: true, apiKey: …} or feed: {enabled: true}", s.ID)
}

// NothingOn is the problem of each site with no channel on (Site.NothingOn), joined.
func (c *Config) NothingOn() error {
	var errs []error
	for i := range c.Sites {
		errs = append(errs, c.Sites[i].NothingOn())
	}
	return errors.Join(errs...)
}

// Warnings are what a site sets for a channel that is off — its credentials, its file — unless the
// site turns the channel off itself (enabled: false): such a site runs, but sends nothing there,
// which is likely not what was meant.
func (s *Site) Warnings() []string { return s.warnings }

// offChannels finds the settings of channels that are off, for Warnings; own holds the keys the
// site wrote itself.
func (s *Site) offChannels(own keySet) []string {
	var out []string
	if !s.IndexNow.Enabled && s.IndexNow.Key != "" && !own.has("indexnow.enabled") {
		out = append(out, "indexnow.key is set but indexnow.enabled is not: nothing goes to IndexNow; add indexnow.enabled: true (or remove the key)")
	}
	if !s.Bing.Enabled && s.Bing.APIKey != "" && !own.has("bing.enabled") {
		out = append(out, "bing.apiKey is set but bing.enabled is not: nothing goes to Bing; add bing.enabled: true (or remove the key)")
	}
	if !s.Google.Enabled && s.Google.Credentials != "" && !own.has("google.enabled") {
		out = append(out, "google.credentials is set but google.enabled is not: nothing goes to Google; add google.enabled: true (or remove the credentials)")
	}
	if !s.Feed.Enabled && own != nil && (own["feed.out"] || own["feed.title"] || own["feed.url"]) && !own["feed.enabled"] {
		out = append(out, "the feed is set up (feed.out, title or url) but feed.enabled is not: no feed is kept; add feed.enabled: true")
	}
	return out
}
