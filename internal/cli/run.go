package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/alert"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/sitechannels"
	"github.com/sitepush/sitepush/internal/sitemap"
	"github.com/sitepush/sitepush/internal/store"
)

// runFlags are the flags of `sitepush run`.
type runFlags struct {
	config  *string
	sites   stringList
	channel *string
	dryRun  *bool
	json    *bool
	noWait  *bool
	verbose *bool
	quiet   *bool
	// retryFailed and baseline are run's alone.
	retryFailed *bool
	baseline    *string
	// jsonOut, github and stepSummary serve a CI step (docs/ci.md): the records to a file
	// beside the summary, annotations, a Markdown account.
	jsonOut     *string
	github      *bool
	stepSummary *string
}

// runRun does one full pass for the selected sites and channels (docs/cli.md, "sitepush run"):
// exit 0 when everything due was submitted, 1 when some submission or sitemap failed, 2 on bad
// usage or configuration.
func runRun(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	f := runFlags{config: configFlag(fs)}
	fs.Var(&f.sites, "site", "run only site `ID` (repeatable)")
	f.channel = fs.String("channel", "all", "run only channel `CHANNEL`: all, "+config.ChannelList())
	f.dryRun = fs.Bool("dry-run", false, "read and diff, but submit nothing and write no state")
	f.json = fs.Bool("json", false, "print each site's execution record as JSON instead of a summary")
	f.noWait = fs.Bool("no-wait", false, "skip a site another run is running instead of waiting for it")
	f.retryFailed = fs.Bool("retry-failed", false, "send only the URLs whose last attempt failed")
	f.baseline = fs.String("baseline", "", "take the URLs sitemap `SITEMAP` (a URL or a file: the live one, before a deploy) lists with the same or a later lastmod as known, never sent (unchanged since the baseline)")
	f.verbose = fs.Bool("verbose", false, "list the URLs the run names — sent, held back by a preflight, failed — per channel, after each site's summary")
	f.quiet = fs.Bool("quiet", false, "print only the sites that failed, errors and warnings")
	f.jsonOut = fs.String("json-out", "", "also write each site's execution record as JSON, one a line, to `FILE` (the summary still prints)")
	f.github = fs.Bool("github", false, "print GitHub Actions annotations: an ::error per error, a ::warning per channel that held URLs back")
	f.stepSummary = fs.String("step-summary", "", "append each site's account in Markdown to `FILE` (a GitHub Actions step's $GITHUB_STEP_SUMMARY)")
	if _, err := parseArgs(e, cmd, fs, args, 0, 0); err != nil {
		return err
	}
	if err := oneOf("channel", *f.channel, append([]string{"all"}, config.Channels...)...); err != nil {
		return err
	}
	if err := checkViewFlags(f); err != nil {
		return err
	}
	cfg, err := loadConfig(*f.config, config.Needs{Channel: *f.channel})
	if err != nil {
		return err
	}
	st, err := openState(e, cfg, *f.dryRun)
	if err != nil {
		return err
	}
	defer st.Close()
	sites, err := selectSites(e, cfg, st, f.sites)
	if err != nil {
		return err
	}
	if sites, err = onChannel(e, sites, *f.channel, len(f.sites) > 0 || len(sites) == 1); err != nil {
		return err
	}
	opt := runner.Options{Trigger: "cli", RetryFailed: *f.retryFailed}
	if *f.baseline != "" {
		if opt.Baseline, err = readBaseline(e, "--baseline", *f.baseline, cfg.UserAgent); err != nil {
			return err
		}
		defer opt.Baseline.Close()
	}
	return runSites(e, cfg, st, sites, f, opt)
}

// readBaseline reads a sitemap to compare with (and of an index, its children): a URL or a
// file; what names it in messages (--baseline, OLD, NEW). The Baseline tells repeats apart on
// its own, sparing the reader its set of every URL.
func readBaseline(e *env, what, target, userAgent string) (*runner.Baseline, error) {
	opt := sitemap.Defaults()
	opt.UserAgent = userAgent
	opt.Repeats = true
	opt.Warn = func(w sitemap.Warning) { fmt.Fprintf(e.stderr, "warning: %s: %s\n", what, w) }
	b, err := runner.ReadBaseline(e.ctx, sitemap.NewReader(opt), []string{target})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, target, err)
	}
	return b, nil
}

// openState opens the store; a dry run never writes to it.
func openState(e *env, cfg *config.Config, dryRun bool) (*store.Store, error) {
	if dryRun {
		return store.OpenReadOnly(e.ctx, cfg.State)
	}
	return store.Open(e.ctx, cfg.State)
}

// runSites runs each site in turn, as opt says, and prints what happened.
func runSites(e *env, cfg *config.Config, st *store.Store, sites []*config.Site, f runFlags, opt runner.Options) error {
	client := httpClient()
	r := runner.New(st)
	r.Client, r.UserAgent, r.Followers = client, cfg.UserAgent, followers(client, st)
	r.Pages = sitechannels.Pages(client, cfg.UserAgent)
	r.Warn = func(site, msg string) { fmt.Fprintf(e.stderr, "warning: site %s: %s\n", site, msg) }
	// A state in memory is gone when this process ends: nothing the run leaves is kept for a
	// later one, and every message about it says so.
	opt.Later = model.Later{Forgets: cfg.State == store.Memory}
	r.Notify = func(msg string) { fmt.Fprintf(e.stderr, "%s\n", msg) }
	view, err := newRunView(e, f)
	if err != nil {
		return err
	}
	defer view.close()
	view.watch(r)
	view.later = opt.Later
	if os.Getenv("GOMEMLIMIT") == "" {
		limit := &memoryLimit{}
		limit.follow(0)
		show := r.Progress
		r.Progress = func(rec *model.Record) {
			show(rec)
			limit.follow(rec.TotalURLs)
		}
	}
	alerts := alert.New(cfg.Webhook, client, cfg.UserAgent)
	if alerts != nil {
		alerts.Later = opt.Later
	}
	failed := 0
	for _, site := range sites {
		chans := sitechannels.For(site, *f.channel, client, cfg.UserAgent, st, time.Now())
		opt.Channels, opt.DryRun, opt.NoWait = chans, *f.dryRun, *f.noWait
		rec, err := r.Run(e.ctx, site, opt)
		view.prog.clear()
		switch {
		case errors.Is(err, runner.ErrBusy):
			fmt.Fprintf(e.stderr, "%v\n", err)
			continue
		case err != nil && rec == nil:
			// The run could not be carried out at all: still one record per site for --json.
			rec = &model.Record{Site: site.ID, Trigger: opt.Trigger, DryRun: *f.dryRun, Status: model.StatusFailed,
				Errors: []string{err.Error()}, Channels: map[string]*model.ChannelStats{}}
		}
		for _, a := range alerts.Alerts(rec) {
			if err := alerts.Send(e.ctx, a); err != nil {
				fmt.Fprintf(e.stderr, "warning: %v\n", err)
			}
		}
		view.site(rec)
		if err != nil || rec.Status == model.StatusFailed || rec.Status == model.StatusPartial {
			failed++
		}
	}
	if failed > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%d of %d sites had failures (see above)", failed, len(sites))}
	}
	return nil
}

// isTerminal reports whether f is a terminal, where progress can be redrawn in place.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// A run's soft memory limit, unless GOMEMLIMIT sets one: 56 MiB, raised to 64 bytes per URL of
// the biggest site read so far. The garbage collector works harder near it, and only there: a
// million-URL site's first run stays within 100 MB, a small site's collects no more often than
// Go's default, and a bigger site's is not made to collect without end.
const (
	baseMemoryLimit = 56 << 20
	memoryPerURL    = 64
)

// memoryLimit sets the run's soft memory limit as the sites' sizes come to be known.
type memoryLimit struct {
	mu  sync.Mutex
	set int64
}

// follow raises the limit to what a site of urls URLs needs.
func (m *memoryLimit) follow(urls int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if want := max(baseMemoryLimit, memoryPerURL*int64(urls)); want > m.set {
		debug.SetMemoryLimit(want)
		m.set = want
	}
}
