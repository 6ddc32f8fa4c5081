package worker

import (
	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/runner"
)

// The KV state is the runner's state; it takes a run's lease only once the run has work
// (LazyLease). It has no fast first run (its catalogue shards are read once a run anyway, so
// every page is looked up), no floors of resubmissions to settle (a shard's summary is made as it
// is written), and no log of removal notices (the Worker tells no URL's story).
// Its assertions are here, where the Worker hands the state to the runner, and not in
// internal/kvstate, which must not import the runner: storage imports no rules.
var (
	_ runner.State     = (*kvstate.State)(nil)
	_ runner.LazyLease = (*kvstate.State)(nil)
)
