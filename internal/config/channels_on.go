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
		"like %s", s.ID, turnOn)
}

// turnOn shows how each channel is turned on: "indexnow: {enabled: true, key: …}", its
// credential given, joined like ChannelList.
var turnOn = func() string {
	var ways []string
	for _, c := range channelSpecs {
		way := c.name + ": {" + leaf(c.enabledKey()) + ": true"
		if c.credential != nil {
			way += ", " + c.credential.Key + ": …"
		}
		ways = append(ways, way+"}")
	}
	return orList(ways)
}()

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
	warn := func(w string) {
		if w != "" {
			out = append(out, w)
		}
	}
	for _, c := range channelSpecs {
		if c.credential != nil {
			warn(c.credential.offWarning(&s.Settings, own))
		}
	}
	warn(googleCredentials.offWarning(&s.Settings, own))
	for _, c := range channelSpecs {
		if *c.enabled(&s.Settings) || own == nil || own[c.enabledKey()] {
			continue
		}
		for _, k := range c.setUp {
			if own[k] {
				warn(c.offWarning)
				break
			}
		}
	}
	return out
}
