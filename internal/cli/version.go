package cli

import (
	"fmt"
	"runtime"

	"github.com/sitepush/sitepush/internal/version"
)

// runVersion prints the version, the commit and the Go toolchain: what a bug report needs.
func runVersion(e *env, cmd command, args []string) error {
	if _, err := parseArgs(e, cmd, newFlags(cmd.name), args, 0, 0); err != nil {
		return err
	}
	_, err := fmt.Fprintf(e.stdout, "sitepush %s (commit %s, %s, %s/%s)\n",
		version.Version(), version.Commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
