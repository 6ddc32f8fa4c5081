// Package worker is sitepush as a Cloudflare Worker: the same core, its state in Workers KV, a
// Cron Trigger for a clock. A tick runs every site whose schedule came since its last run (or
// whose last run stopped before its end), within what one invocation may spend: its
// subrequests, its KV operations. The HTTP face answers as serve does (docs/api.md) for the
// routes that make sense without a server. It knows nothing of JavaScript: cmd/sitepush-worker
// binds it to the Workers runtime, and its tests run it natively over a KV in memory.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/kvstate"
)

// Env is what the platform gives the Worker.
type Env struct {
	// Var returns a var or a secret of the Worker (wrangler.toml [vars], wrangler secret put).
	Var func(name string) (string, bool)
	// KV is the namespace bound as STATE.
	KV kvstate.KV
	// Transport makes the Worker's requests (through fetch).
	Transport http.RoundTripper
	// WaitUntil keeps the invocation alive until f returns, after its answer was sent.
	WaitUntil func(f func())
	// Logger receives what happens (the Worker's logs).
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Fingerprint is what a tick plans the sites' schedule under (kvstate.ScheduleKey): a digest
	// of the Worker's build and vars, which the JS module computes and compares with the
	// schedule's before it starts Go. Empty, no plan is trusted: every tick reads each site's state.
	Fingerprint string
}

// Vars of the Worker besides the configuration's own ${NAME}s.
const (
	// ConfigVar holds the configuration, YAML or JSON (on one line, as .dev.vars wants it).
	ConfigVar = "SITEPUSH_CONFIG"
	// SubrequestsVar bounds the requests one invocation makes.
	SubrequestsVar = "SITEPUSH_SUBREQUESTS"
	// DefaultSubrequests suits the Paid plan, which allows 10,000 subrequests an invocation (the
	// Free plan's 50 do not cover the Worker: docs/cloudflare.md, Limits).
	DefaultSubrequests = 1000
)

// App is the Worker of one configuration.
type App struct {
	env         Env
	cfg         *config.Config
	err         error // the configuration's problem: every request answers it
	subrequests int
}

// New reads the configuration from env. A configuration that does not load is kept as the
// App's error: every request answers it and every tick logs it.
func New(env Env) *App {
	if env.Now == nil {
		env.Now = time.Now
	}
	a := &App{env: env}
	a.cfg, a.subrequests, a.err = loadConfig(env.Var)
	if a.err == nil && env.KV == nil {
		a.err = errors.New("no KV namespace is bound as STATE: create one (npx wrangler kv namespace create STATE) and add its " +
			"[[kv_namespaces]] binding = \"STATE\" to wrangler.toml; see docs/cloudflare.md")
	}
	return a
}

// Err is the configuration's problem, nil when it loaded.
func (a *App) Err() error { return a.err }

// invocation is what one invocation — a tick, a request — may spend, and its state.
type invocation struct {
	state  *kvstate.State
	client *http.Client
	budget context.Context
	spend  context.CancelCauseFunc
	// now is the invocation's clock: its time (a tick's scheduledTime), going on as time passes,
	// so that the runs a tick starts are timed on the clock its schedule is read by.
	now func() time.Time
}

// errSubrequests is why an invocation's runs stop when its subrequests are spent.
type errSubrequests int

func (e errSubrequests) Error() string {
	return fmt.Sprintf("the %d subrequests of this invocation are spent (%s)", int(e), SubrequestsVar)
}

// errKVOps is why an invocation's runs stop when its KV operations are nearly spent.
var errKVOps = errors.New("the KV operations of this invocation are nearly spent")

// newInvocation starts an invocation's budget and state; at is its time: a tick's scheduled
// time, or now.
func (a *App) newInvocation(ctx context.Context, at time.Time) *invocation {
	budget, spend := context.WithCancelCause(ctx)
	began := a.env.Now()
	inv := &invocation{budget: budget, spend: spend, now: func() time.Time { return at.Add(a.env.Now().Sub(began)) }}
	inv.state = kvstate.New(a.env.KV, kvstate.Options{Spent: func() { spend(errKVOps) }, Now: func() time.Time { return at },
		Warn: func(msg string) { a.env.Logger.Warn(msg) }})
	limit := int64(a.subrequests)
	stopAt := limit
	if a.cfg != nil && a.cfg.Webhook != nil {
		stopAt = max(1, limit-int64(len(config.Channels))) // a run's alerts, one a channel at most, still go
	}
	inv.client = &http.Client{Transport: &counted{next: a.env.Transport, limit: limit, stopAt: stopAt,
		fetchesTo: stopAt - min(engineReserve, stopAt/4), spend: spend}}
	return inv
}

// Spent is what an invocation spent: its subrequests, its KV operations, and the memory Go holds.
type Spent struct {
	Subrequests      int64
	KV               kvstate.Ops
	HeapMB, MemoryMB uint64
}

// flush writes what the invocation left unwritten, and returns what it cost.
func (a *App) flush(ctx context.Context, inv *invocation) Spent {
	if err := inv.state.Flush(context.WithoutCancel(ctx)); err != nil {
		a.env.Logger.Error("writing the state", "err", err)
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	inv.spend(nil)
	return Spent{Subrequests: inv.client.Transport.(*counted).n.Load(), KV: inv.state.Ops(), HeapMB: mem.HeapAlloc >> 20, MemoryMB: mem.Sys >> 20}
}

// logged flushes a request's invocation and logs what it cost.
func (a *App) logged(ctx context.Context, inv *invocation, what string) {
	s := a.flush(ctx, inv)
	a.env.Logger.Info(what+" done", "subrequests", s.Subrequests, "kv_reads", s.KV.Reads, "kv_writes", s.KV.Writes,
		"kv_deletes", s.KV.Deletes, "kv_lists", s.KV.Lists, "heap_mb", s.HeapMB, "memory_mb", s.MemoryMB)
}

// engineReserve is how many of an invocation's last subrequests page fetches leave to the
// engines (a quarter of them, when fewer): a run's IndexNow POST and its retries, Bing's quota
// and batch. A preflight or a removal probe past them is refused (channel.ErrNoFetch) and waits
// for a later tick, so that the URLs checked are still sent.
const engineReserve = 8

// counted is a transport that counts an invocation's requests: at stopAt it spends the budget,
// so that runs stop sending as at their runBudget — a request that gets no answer after that is
// no failure, its URLs stay due (docs/runs.md) — and it refuses the requests past limit, which
// would break the invocation on Cloudflare. Between the two go the alerts of the runs stopped.
// Page fetches (channel.PageFetch) go up to fetchesTo only.
type counted struct {
	next                     http.RoundTripper
	limit, stopAt, fetchesTo int64
	n                        atomic.Int64
	spend                    context.CancelCauseFunc
}

func (c *counted) RoundTrip(r *http.Request) (*http.Response, error) {
	n := c.n.Add(1)
	if n > c.limit {
		c.n.Add(-1)
		return nil, errSubrequests(c.limit)
	}
	if n > c.fetchesTo && channel.IsPageFetch(r.Context()) {
		c.n.Add(-1)
		return nil, channel.ErrNoFetch
	}
	if n >= c.stopAt {
		c.spend(errSubrequests(c.limit))
	}
	return c.next.RoundTrip(r)
}
