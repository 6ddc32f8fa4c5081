package config

import (
	"strings"
	"testing"
)

// TestEveryChannelHasItsWords checks that a channel added to Channels is given its words for the
// API, and a place in the lists of messages.
func TestEveryChannelHasItsWords(t *testing.T) {
	for _, name := range Channels {
		if msg := ChannelOff(name); strings.HasPrefix(msg, "There is no channel") {
			t.Errorf("channel %q has no message for /trigger: %q", name, msg)
		}
		if !strings.Contains(ChannelList(), name) {
			t.Errorf("ChannelList() = %q leaves %q out", ChannelList(), name)
		}
		s := Site{Settings: Builtin()}
		if s.Enabled(name) {
			t.Errorf("channel %q is on by default", name)
		}
	}
	if got := ChannelList(); got != "indexnow, bing or feed" {
		t.Errorf("ChannelList() = %q", got)
	}
}
