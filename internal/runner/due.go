package runner

import "time"

// Due is a URL due on a channel.
type Due struct {
	Hash    int64
	URL     string
	Lastmod time.Time
	// Retry is set when the URL's last attempt on the channel failed.
	Retry bool
	// Failures counts the attempts that failed in a row before this run (0 unless Retry).
	Failures int
}
