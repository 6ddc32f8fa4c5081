package model

import "time"

// Inspection is what Google's URL Inspection last said of a URL (its indexStatusResult): kept
// so that a URL's story shows it, and so that a URL is inspected once after each submission.
type Inspection struct {
	// CoverageState is Google's words: "Submitted and indexed", "URL is unknown to Google", …
	CoverageState string
	// IndexingState is INDEXING_ALLOWED, BLOCKED_BY_META_TAG, … as Google gives it.
	IndexingState string
	// LastCrawl is when Google last crawled the URL; zero when it never did.
	LastCrawl time.Time
	// CheckedAt is when it was asked.
	CheckedAt time.Time
}

// ToInspect is a URL a channel sent that was not inspected since.
type ToInspect struct {
	Hash int64
	URL  string
}
