package cli

import (
	"encoding/json"
	"io"
	"slices"

	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// runView is what `sitepush run` shows of its sites: each site's summary (or, with --json, its
// record); with --verbose the URLs the run names; with --quiet only the sites that failed.
// Progress goes to the terminal meanwhile, unless --quiet.
type runView struct {
	w       io.Writer
	json    bool
	quiet   bool
	verbose bool
	prog    *progress
}

// checkViewFlags refuses flags that exclude each other: --verbose and --quiet shape the summary,
// which --json replaces with the whole record.
func checkViewFlags(f runFlags) error {
	switch {
	case *f.verbose && *f.quiet:
		return usageError("sitepush run: --verbose and --quiet exclude each other: use one")
	case *f.json && (*f.verbose || *f.quiet):
		return usageError("sitepush run: --json prints every site's whole record; --verbose and --quiet shape the summary it replaces: use one or the other")
	}
	return nil
}

// newRunView returns the view of a run with flags f, printing to e.stdout, drawing progress on
// e.stderr; close it when done.
func newRunView(e *env, f runFlags) *runView {
	return &runView{w: e.stdout, json: *f.json, quiet: *f.quiet, verbose: *f.verbose, prog: newProgress(e.stderr, !*f.quiet)}
}

// watch makes r report to the view as its runs go.
func (v *runView) watch(r *runner.Runner) {
	r.Progress, r.OnWait = v.prog.show, v.prog.wait
	if v.quiet {
		r.Notify = nil // waiting for a site busy elsewhere is no failure
	}
}

// site shows what a site's run did, once it is over and the progress line cleared.
func (v *runView) site(rec *model.Record) {
	switch {
	case v.json:
		enc := json.NewEncoder(v.w)
		enc.SetEscapeHTML(false)
		enc.Encode(rec)
	case v.quiet && slices.Contains(model.GoodStatuses(), rec.Status):
		// A site that went well: nothing to say.
	default:
		printRecord(v.w, rec)
		if v.verbose && !rec.DryRun {
			printURLs(v.w, rec) // a dry run's table names them already
		}
	}
}

// close stops the progress line.
func (v *runView) close() { v.prog.close() }
