package model

import "time"

// Validators are what a page's last answer gave to make the next fetch of it conditional
// (If-None-Match, If-Modified-Since): empty when it gave none, or the page was read from disk.
type Validators struct {
	ETag, LastModified string
}

// PageRead is what one read of a page for a content check found (docs/runs.md, "What changed").
type PageRead struct {
	// Content is the page's fingerprint (internal/fingerprint); zero when NotModified.
	Content uint64
	// NotModified is set when the page answered 304 to a conditional GET: unchanged since the
	// answer whose Validators were given.
	NotModified bool
	// Validators are this answer's, for the next read.
	Validators Validators
}

// ToCheck is a page a run may check the content of, as the state gives it (State.PagesToCheck):
// the suspects first — pages new, or whose lastmod moved, on a sitemap checked by content, not
// checked since — then those checked longest ago.
type ToCheck struct {
	Hash    int64
	URL     string
	Lastmod time.Time // its lastmod in the sitemaps, as last read
	// Suspect is set for a page not checked since it became one.
	Suspect bool
	// Content is the fingerprint of its last check (zero: never checked), Validators that
	// check's answer's.
	Content    uint64
	Validators Validators
}

// PageCheck is what a run's check of a page's content found, for the state to keep
// (State.RecordChecks).
type PageCheck struct {
	Hash int64
	At   time.Time
	// Content is the page's fingerprint; zero when the check failed (a timeout, a 5xx, a page too
	// large), which changes nothing but leaves the page where it was in line.
	Content uint64
	// Changed is set when Content differs from the content of the page's check before (the
	// state moves it ahead in the rotation: a page seen to change is looked at sooner).
	Changed    bool
	Validators Validators
}

// Changes is what a run's content checks found: the record's `changes` (SPEC §6).
type Changes struct {
	// Checked counts the pages whose content was read (fetched, or read from the built site),
	// 304s included; Changed those whose content differs from their check before, Same those
	// whose content did not (NotModified of them answered 304).
	Checked     int `json:"checked"`
	Changed     int `json:"changed"`
	Same        int `json:"same"`
	NotModified int `json:"notModified"`
	// First counts pages checked for the first time (nothing to compare yet); Failed the checks
	// that failed (the page stays a suspect); Left the suspects the run had no checks left for
	// (checksPerRun, its budget): first in line next run.
	First  int `json:"first,omitempty"`
	Failed int `json:"failed,omitempty"`
	Left   int `json:"left,omitempty"`
	// Sitemaps says, of each sitemap read, how what changed was told: "lastmod: trusted, 200
	// distinct values" or "content: …".
	Sitemaps map[string]string `json:"sitemaps,omitempty"`
}
