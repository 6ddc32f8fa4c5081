// Package cli is sitepush's command line: one file per command, exit codes decided here.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
)

// Exit codes, the same for every command.
const (
	exitOK     = 0
	exitFailed = 1 // the command ran but some of its work failed
	exitUsage  = 2 // bad usage or configuration: nothing was done
)

// env is what a command needs from the process; commands never touch os.Stdout or os.Args.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand: its flags, its positional arguments and what it does.
type command struct {
	name    string
	args    string // synopsis of the positional arguments and flags, for usage
	summary string
	// run parses args (everything after the command name) and does the work.
	run func(e *env, cmd command, args []string) error
}

// commands lists every subcommand, in the order usage shows them.
func commands() []command {
	return []command{
		{name: "init", args: "URL [--config F] [--key-dir DIR]",
			summary: "Write a configuration for the site at URL (its root, or a sitemap): the sitemaps found there and a fresh IndexNow key, and with --key-dir the key file. Never overwrites a file.",
			run:     runInit},
		{name: "run", args: "[--config F] [--site ID]... [--channel all|" + strings.Join(config.Channels, "|") + "] [--dry-run] [--json | --verbose | --quiet] [--no-wait] [--retry-failed] [--baseline SITEMAP] [--json-out FILE] [--github] [--step-summary FILE]",
			summary: "Read each site's sitemaps once and submit what is new or changed, then exit.",
			run:     runRun},
		{name: "submit", args: "[--site ID] [--config F] [--channel all|" + strings.Join(config.Channels, "|") + "] [--force] [--json] URL...|-",
			summary: "Submit chosen URLs of a site now through its channels (- reads them from stdin, one per line).",
			run:     runSubmit},
		{name: "serve", args: "[--config F]",
			summary: "Run the sites on their schedules, and serve the admin API, the feeds and the metrics, until stopped.",
			run:     runServe},
		{name: "check", args: "[--config F] [--site ID]... [--json] [--webhook]",
			summary: "Check that each site would run: sitemaps, the IndexNow key file, the Bing API key and quota. Writes nothing.",
			run:     runCheck},
		{name: "feed", args: "[--config F] [--site ID] [--out FILE]",
			summary: "Write a site's current RSS feed to a file, or to stdout, for static hosting.",
			run:     runFeed},
		{name: "inspect", args: "[--site ID] [--config F] [--json] URL",
			summary: "Print what sitepush knows of one URL of a site: in the sitemaps or not, and what each channel did with it and will do.",
			run:     runInspect},
		{name: "urls", args: "SITEMAP [--format text|tsv|jsonl] [--user-agent UA]",
			summary: "Print every page URL of a sitemap: a URL, a site root or robots.txt (discovery), or a local file.",
			run:     runURLs},
		{name: "diff", args: "OLD NEW [--format text|tsv|jsonl] [--user-agent UA]",
			summary: "Print what a run given sitemap OLD as its --baseline would send of sitemap NEW (new and changed URLs) and announce as removed, of the site on the host of NEW's first URL; each a URL or a file. Submits nothing.",
			run:     runDiff},
		{name: "key", summary: "Print a fresh IndexNow key: 32 random lowercase hex characters.", run: runKey},
		{name: "health", args: "[URL] [--timeout D]",
			summary: "Ask a running sitepush serve whether it is healthy (GET URL, default " + defaultHealthURL + "): exit 0 on 200, else 1. The container image's HEALTHCHECK.",
			run:     runHealth},
		{name: "version", summary: "Print the version and the commit it was built from (also sitepush --version).", run: runVersion},
	}
}

// exitError is an error that decides the exit code; a plain error means exitFailed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError reports bad usage or configuration: exit 2, nothing was done.
func usageError(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// errHelpShown ends a command that printed its help, as asked: exit 0.
var errHelpShown = errors.New("help shown")

// Main runs sitepush with args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "--help", "-help", "help":
		if len(rest) == 0 {
			usage(stdout)
			return exitOK
		}
		name, rest = rest[0], []string{"--help"} // sitepush help run: run's help
	case "--version", "-version":
		name = "version" // the global flag of every release tool: the same as sitepush version
	}
	for _, c := range commands() {
		if c.name == name {
			return exitCode(c.run(e, c, rest), stderr)
		}
	}
	return exitCode(unknownCommand(name), stderr)
}

// unknownCommand refuses a command sitepush does not have, suggesting the one most like it.
func unknownCommand(name string) error {
	if near := nearest(name, commandList()); near != "" {
		return usageError("unknown command %q (did you mean %s?); the commands are %s (see sitepush --help)", name, near, commandNames())
	}
	return usageError("unknown command %q; the commands are %s (see sitepush --help)", name, commandNames())
}

// exitCode prints err, if any, and maps it to the process exit code.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelpShown):
		return exitOK
	}
	fmt.Fprintf(stderr, "error: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailed
}

// usage prints the list of commands.
func usage(w io.Writer) {
	fmt.Fprintln(w, "sitepush watches sitemaps and tells search engines and readers what changed.")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  sitepush %s %s\n", c.name, c.args)
		fmt.Fprintf(w, "      %s\n", c.summary)
	}
	fmt.Fprintln(w, "\nRun \"sitepush COMMAND --help\" for a command's flags; \"sitepush --version\" prints the version.")
}

func commandNames() string { return strings.Join(commandList(), ", ") }

func commandList() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}
