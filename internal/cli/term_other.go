//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cli

// terminalWidth is 0 where the width of a terminal is not asked: the default width is used.
func terminalWidth(any) int { return 0 }
