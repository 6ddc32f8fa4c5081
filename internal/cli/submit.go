package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/runner"
)

// maxSubmit bounds the URLs of one submit, from the arguments or stdin.
const maxSubmit = 100_000

// runSubmit pushes chosen URLs of a site — the one --site names, or the only one — through its
// channels now (docs/cli.md, "sitepush submit"): URLs not delivered, or changed, unless --force. URLs the site does not take are
// refused with the reason; the others still go. Exit 0 when all went, 1 when some were refused
// or failed, 2 when none could be taken.
func runSubmit(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	f := runFlags{config: configFlag(fs)}
	id := fs.String("site", "", "the site `ID` the URLs belong to (needed when there are several)")
	f.channel = fs.String("channel", "all", "submit through channel `CHANNEL` only: all, "+config.ChannelList())
	force := fs.Bool("force", false, "send the URLs even if they were delivered and did not change")
	f.json = fs.Bool("json", false, "print the execution record as JSON instead of a summary")
	f.dryRun, f.noWait, f.verbose, f.quiet, f.github = new(bool), new(bool), new(bool), new(bool), new(bool)
	f.jsonOut, f.stepSummary = new(string), new(string)
	args, err := parseArgs(e, cmd, fs, args, 1, -1)
	if err != nil {
		return err
	}
	if err := oneOf("channel", *f.channel, append([]string{"all"}, config.Channels...)...); err != nil {
		return err
	}
	urls, err := chosenURLs(args, os.Stdin)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(*f.config, config.Needs{Channel: *f.channel})
	if err != nil {
		return err
	}
	st, err := openState(e, cfg, false)
	if err != nil {
		return err
	}
	defer st.Close()
	site, err := oneSite(e, cfg, st, "submit", *id, "the site whose channels and key the URLs go through")
	if err != nil {
		return err
	}
	sites, err := onChannel(e, []*config.Site{site}, *f.channel, true)
	if err != nil {
		return err
	}
	var take []string
	refused := 0
	for _, u := range urls {
		if why := runner.Refused(site, u); why != "" {
			fmt.Fprintf(e.stderr, "refused: %s: %s\n", u, why)
			refused++
			continue
		}
		take = append(take, u)
	}
	if len(take) == 0 {
		return usageError("none of the %s can be submitted for site %s (see above)", human.Count(len(urls), "URL"), site.ID)
	}
	err = runSites(e, cfg, st, sites, f, runner.Options{Trigger: "manual", URLs: take, Force: *force})
	if err == nil && refused > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%s of %d refused (see above)", human.Count(refused, "URL"), len(urls))}
	}
	return err
}

// chosenURLs reads the URLs of a submit: the arguments, or stdin for "-", one per line (blank
// lines and lines starting with # are skipped). None at all is an error: only stdin can give none.
func chosenURLs(args []string, stdin io.Reader) ([]string, error) {
	var urls []string
	for _, a := range args {
		if a != "-" {
			urls = append(urls, a)
			continue
		}
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 0, 4096), runner.MaxURLLength+2)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line != "" && !strings.HasPrefix(line, "#") {
				urls = append(urls, line)
			}
			if len(urls) > maxSubmit {
				break
			}
		}
		if err := sc.Err(); err != nil {
			return nil, usageError("reading URLs from stdin: %v (one URL per line, at most %d characters)", err, runner.MaxURLLength)
		}
	}
	switch {
	case len(urls) > maxSubmit:
		return nil, usageError("more than %s URLs: submit them in parts, or let sitepush run find them in the sitemaps", human.Int(maxSubmit))
	case len(urls) == 0:
		return nil, usageError("no URL on stdin: give one per line (blank lines and # comments are skipped), or give the URLs as arguments")
	}
	return urls, nil
}
