//go:build unix

package changes

import "syscall"

// openFlags open a file without blocking: a FIFO that took a file's place between Dir's look
// and its open is then opened at once, and refused, rather than waiting for a writer.
const openFlags = syscall.O_NONBLOCK
