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

// parse returns the duration of a backlog written as one; all is -1, none 0.
func (b Backlog) parse() (time.Duration, error) {
	switch b {
	case "", BacklogAll:
		return -1, nil
	case BacklogNone:
		return 0, nil
	}
	d, err := time.ParseDuration(string(b))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("backlog must be all, none or a duration like 720h (the lastmods a first run sends), got %q", string(b))
	}
	return d, nil
}

// FirstRunSends reports whether a channel's first run for the site sends a URL with this lastmod
// (zero when the sitemap gives none), at now: by the site's backlog setting.
func (s *Site) FirstRunSends(lastmod, now time.Time) bool {
	d := s.compiled.backlog
	switch {
	case d < 0:
		return true
	case d == 0 || lastmod.IsZero():
		return false
	}
	return !lastmod.Before(now.Add(-d))
}

// BacklogAll reports whether a first run sends every URL: the setting is all.
func (s *Site) BacklogAll() bool { return s.compiled.backlog < 0 }
