//go:build !unix

package changes

// openFlags are none where the system has no O_NONBLOCK (js, wasip1) or no FIFO in the file
// tree (Windows): Dir's look before it opens is the only guard there.
const openFlags = 0
