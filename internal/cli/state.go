package cli

import (
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
)

// The SQL store is the runner's state, with each of its optional parts: a fast first run, floors
// of resubmissions to settle, the day's statistics of requests, the URLs that left the sitemaps.
// Its assertions are here, where the commands hand the store to the runner, and not in the store,
// which must not import the runner.
var (
	_ runner.State           = (*store.Store)(nil)
	_ runner.NewSiteLoader   = (*store.Store)(nil)
	_ runner.ResubmitSettler = (*store.Store)(nil)
	_ runner.RequestCounter  = (*store.Store)(nil)
	_ runner.Removals        = (*store.Store)(nil)
)
