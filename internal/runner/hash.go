package runner

import "github.com/cespare/xxhash/v2"

// URLHash identifies a URL within its site in the store: the URL's 64-bit xxHash. It must never
// change, or every URL would look new.
func URLHash(url []byte) int64 {
	return int64(xxhash.Sum64(url))
}
