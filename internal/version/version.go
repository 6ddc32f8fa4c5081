// Package version tells which build of sitepush is running.
package version

import (
	"runtime/debug"
	"sync"
)

// These are set at link time: go build -ldflags "-X github.com/sitepush/sitepush/internal/version.version=v1.2.3
// -X github.com/sitepush/sitepush/internal/version.commit=abc1234". Without them the module version and the VCS
// revision recorded by the Go toolchain are used, when there are any.
var (
	version = ""
	commit  = ""
)

var info = sync.OnceValues(func() (string, string) {
	v, c := version, commit
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && c == "" {
				c = s.Value
			}
		}
	}
	if v == "" {
		v = "dev"
	}
	if c == "" {
		c = "unknown"
	} else if len(c) > 12 {
		c = c[:12]
	}
	return v, c
})

// Version is the release version, or "dev" for a build from a checkout.
func Version() string { v, _ := info(); return v }

// Commit is the VCS revision the binary was built from, or "unknown".
func Commit() string { _, c := info(); return c }

// UserAgent is the User-Agent sitepush sends unless the configuration names another.
func UserAgent() string {
	return "sitepush/" + Version() + " (+https://github.com/sitepush/sitepush)"
}
