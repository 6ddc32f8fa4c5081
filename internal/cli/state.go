package cli

import (
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/google"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
)

// The SQL store is the runner's state, with each of its optional parts: a fast first run, floors
// of resubmissions to settle, a log of the removal notices accepted.
// Its assertions are here, where the commands hand the store to the runner, and not in the store,
// which must not import the runner.
var (
	_ runner.State           = (*store.Store)(nil)
	_ runner.NewSiteLoader   = (*store.Store)(nil)
	_ runner.ResubmitSettler = (*store.Store)(nil)
	_ runner.RemovalLog      = (*store.Store)(nil)
)

// The SQL store keeps what Google needs, and Google follows a run up.
var (
	_ google.Store    = (*store.Store)(nil)
	_ runner.Follower = (*google.Follower)(nil)
)

// followers returns what follows up the runs of the commands and serve (runner.Followers):
// Google, for a site that has it on. It is here, and not in sitechannels, so that the Worker,
// which does not talk to Google, builds without it.
func followers(client *http.Client, st *store.Store) func(site *config.Site) []runner.Follower {
	return func(site *config.Site) []runner.Follower {
		if !site.Google.Enabled {
			return nil
		}
		return []runner.Follower{google.New(site, client, st, time.Now)}
	}
}
