package cli

import (
	"encoding/json"
	"io"
	"os"
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
	// records (--json-out) and steps (--step-summary) are files written beside the summary,
	// nil when not asked for; github prints annotations (--github).
	records, steps *os.File
	github         bool
	// later words what becomes of what a run left undone (runner.Options.Later).
	later model.Later
}

// checkViewFlags refuses flags that exclude each other: --verbose and --quiet shape the summary,
// which --json replaces with the whole record; --github's annotations would break --json's.
func checkViewFlags(f runFlags) error {
	switch {
	case *f.verbose && *f.quiet:
		return usageError("sitepush run: --verbose and --quiet exclude each other: use one")
	case *f.json && (*f.verbose || *f.quiet):
		return usageError("sitepush run: --json prints every site's whole record; --verbose and --quiet shape the summary it replaces: use one or the other")
	case *f.json && *f.github:
		return usageError("sitepush run: --json prints the records on stdout, where --github's annotations would break them: use --json-out FILE with --github")
	}
	return nil
}

// newRunView returns the view of a run with flags f, printing to e.stdout, drawing progress on
// e.stderr; close it when done. The files it writes are opened now, before any site runs: one
// that cannot be written is said before anything is sent.
func newRunView(e *env, f runFlags) (*runView, error) {
	v := &runView{w: e.stdout, json: *f.json, quiet: *f.quiet, verbose: *f.verbose, github: *f.github}
	var err error
	if *f.jsonOut != "" {
		if v.records, err = os.Create(*f.jsonOut); err != nil {
			return nil, usageError("sitepush run: --json-out: %v; give a file in a directory that exists and can be written", err)
		}
	}
	if *f.stepSummary != "" {
		if v.steps, err = os.OpenFile(*f.stepSummary, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
			v.closeFiles()
			return nil, usageError("sitepush run: --step-summary: %v; give a file in a directory that exists and can be written", err)
		}
	}
	v.prog = newProgress(e.stderr, !*f.quiet)
	return v, nil
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
	if v.records != nil {
		encodeRecord(v.records, rec)
	}
	switch {
	case v.json:
		encodeRecord(v.w, rec)
	case v.quiet && slices.Contains(model.GoodStatuses(), rec.Status):
		// A site that went well: nothing to say.
	default:
		printRecord(v.w, rec, v.later)
		if v.verbose && !rec.DryRun {
			printURLs(v.w, rec) // a dry run's table names them already
		}
	}
	if v.github {
		printAnnotations(v.w, rec)
	}
	if v.steps != nil {
		writeStepSummary(v.steps, rec)
	}
}

// encodeRecord writes rec as one line of JSON.
func encodeRecord(w io.Writer, rec *model.Record) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(rec)
}

// close stops the progress line and closes the files written.
func (v *runView) close() {
	v.prog.close()
	v.closeFiles()
}

// closeFiles closes the files the view writes.
func (v *runView) closeFiles() {
	for _, f := range []*os.File{v.records, v.steps} {
		if f != nil {
			f.Close()
		}
	}
}
