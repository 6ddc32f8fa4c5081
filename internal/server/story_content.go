package server

import (
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/store"
)

// ContentStory is where a URL's page stands in the content checks (docs/runs.md, "What
// changed"): whether its sitemap is checked by content, whether it waits for a check, and when
// it was checked — what makes a moved lastmod mean something or nothing.
type ContentStory struct {
	// InRotation is set while the page's sitemap is checked by content (its lastmods do not tell
	// pages apart): the page is checked in its turn, and is due on a channel when its content
	// differs from what the channel was sent.
	InRotation bool `json:"inRotation"`
	// Suspect is set for a page new to the checks, or whose lastmod moved, not checked since: it
	// is checked first next run, and its moved lastmod makes it due nowhere meanwhile.
	Suspect bool `json:"suspect"`
	// Checked is set when its content was ever read.
	Checked bool `json:"checked"`
	// CheckedAt is the check that keeps its place in line: its last check, unless checks since
	// found it changed (a page seen to change keeps its place, to come round sooner); null for a
	// suspect and a page out of the rotation.
	CheckedAt *time.Time `json:"checkedAt"`
}

// contentStory tells where a page stands in the content checks, from c; nil when it is out of
// the rotation and was never checked.
func contentStory(c store.Checks) *ContentStory {
	if !c.InRotation && c.Content == 0 {
		return nil
	}
	return &ContentStory{InRotation: c.InRotation, Suspect: c.Suspect, Checked: c.Content != 0, CheckedAt: timeOrNil(c.CheckedAt)}
}

// sameAsSent says whether a page's content at its last check is what the channel of st was
// sent — what decides whether it changed when its sitemap is checked by content (inRotation) —
// or nil when there is nothing to compare: its lastmods decide, it was never checked, or nothing
// was recorded as sent.
func sameAsSent(st model.DeliveryState, inRotation bool) *bool {
	if !inRotation || st.Content == 0 || st.Sent == 0 {
		return nil
	}
	same := st.Content == st.Sent
	return &same
}

// sentStory is what a URL's content line says of one channel: whether the page's content is
// what it was sent, when, and whether it is due.
type sentStory struct {
	name   string
	same   *bool
	sentAt *time.Time
	due    bool
}

// ContentLine says in one line, in a person's words, where the URL's page stands in the content
// checks and what they found against what each channel was sent — "checked (its place in line
// from …): content the same as sent to indexnow on …", "lastmod moved on …, not checked since (a suspect: checked first
// next run)", "its sitemap's lastmods are trusted: not checked" — with times as when writes
// them. `sitepush inspect` prints it; the dashboard's URL page says the same.
func (s *URLStory) ContentLine(when func(time.Time) string) string {
	var sent []sentStory
	for _, name := range config.Channels {
		if c, ok := s.Channels[name]; ok {
			sent = append(sent, sentStory{name: name, same: c.SameAsSent, sentAt: c.LastDelivery, due: c.Due})
		}
	}
	return sayContent(s.Content, s.Lastmod, sent, when)
}

// sayContent is ContentLine's sentence of c, for a page of lastmod (nil: none) whose channels
// are sent.
func sayContent(c *ContentStory, lastmod *time.Time, sent []sentStory, when func(time.Time) string) string {
	const first = " (a suspect: checked first next run)"
	switch {
	case c == nil:
		return "its sitemap's lastmods are trusted: not checked"
	case !c.InRotation:
		return "its sitemap's lastmods are trusted now: not checked"
	case c.Suspect && !c.Checked:
		return "new to the checks, not checked yet" + first
	case c.Suspect && lastmod != nil:
		return "lastmod moved on " + when(*lastmod) + ", not checked since" + first
	case c.Suspect:
		return "back in the checks, not checked since" + first
	}
	line := "checked"
	if c.CheckedAt != nil {
		line += " (its place in line from " + when(*c.CheckedAt) + ")"
	}
	var found []string
	for _, s := range sent {
		if s.same == nil {
			continue
		}
		// A page never sent (a backlog's, one a preflight held back) is compared with its
		// content when the channel took it as known: nothing was sent it.
		what := "content the same as sent to " + s.name
		switch {
		case *s.same && s.sentAt != nil:
			what += " on " + when(*s.sentAt)
		case *s.same:
			what = "content unchanged for " + s.name + ", which was never sent it"
		case s.sentAt == nil:
			what = "content changed for " + s.name + ", which was never sent it"
		default:
			what = "content changed since " + s.name + " was sent it"
		}
		if !*s.same && s.due {
			what += ": due"
		} else if !*s.same {
			what += ": not due"
		}
		found = append(found, what)
	}
	if len(found) == 0 {
		return line
	}
	return line + ": " + strings.Join(found, "; ")
}

// sentStories is what the content line of the dashboard's URL page says of chans.
func sentStories(chans []channelStory) []sentStory {
	out := make([]sentStory, 0, len(chans))
	for _, c := range chans {
		out = append(out, sentStory{name: c.Name, same: c.SameAsSent, sentAt: timeOrNil(c.Delivery.State.DeliveredAt), due: c.Due != ""})
	}
	return out
}
