package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/sitepush/sitepush/internal/alert"
	"github.com/sitepush/sitepush/internal/changes"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/sitemap"
	"github.com/sitepush/sitepush/internal/sites"
	"github.com/sitepush/sitepush/internal/store"
)

// Levels of a check's result.
const (
	levelPass = "pass"
	levelWarn = "warn"
	levelFail = "fail"
)

// checkResult is one line of `sitepush check`, and one element of its --json document.
type checkResult struct {
	Site    string `json:"site,omitempty"`
	Check   string `json:"check"`
	Level   string `json:"level"`
	Message string `json:"message"`
}

// checkReport is what `sitepush check --json` prints: one JSON document.
type checkReport struct {
	Config string        `json:"config"`
	OK     bool          `json:"ok"`
	Failed int           `json:"failed"`
	Checks []checkResult `json:"checks"`
}

// checker runs the preflight checks of `sitepush check`: it prints a line for each as it is
// done, or keeps them for the --json document.
type checker struct {
	e      *env
	cfg    *config.Config
	st     *store.Store // nil when the state does not open
	client *http.Client
	json   bool
	site   string // the site being checked, "" for the checks of the whole configuration
	report checkReport
	// reached holds what each IndexNow endpoint answered, asked once for all the sites.
	reached map[string]reach
}

var levelMarks = map[string]string{levelPass: "✓", levelWarn: "!", levelFail: "✗"}

func (c *checker) add(check, level, format string, a ...any) {
	r := checkResult{Site: c.site, Check: check, Level: level, Message: fmt.Sprintf(format, a...)}
	c.report.Checks = append(c.report.Checks, r)
	if level == levelFail {
		c.report.Failed++
	}
	if c.json {
		return
	}
	indent := ""
	if c.site != "" {
		indent = "  "
	}
	fmt.Fprintf(c.e.stdout, "%s%s %s\n", indent, levelMarks[level], r.Message)
}

func (c *checker) pass(check, format string, a ...any) { c.add(check, levelPass, format, a...) }
func (c *checker) warn(check, format string, a ...any) { c.add(check, levelWarn, format, a...) }
func (c *checker) fail(check, format string, a ...any) { c.add(check, levelFail, format, a...) }

// checkFlags are the flags of `sitepush check`.
type checkFlags struct {
	config  *string
	sites   stringList
	json    *bool
	webhook *bool
}

// runCheck checks, without writing anything, that each site would run: the configuration, the
// state, each sitemap, each channel and what it needs (docs/cli.md, "sitepush check").
func runCheck(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	f := checkFlags{config: configFlag(fs)}
	fs.Var(&f.sites, "site", "check only site `ID` (repeatable)")
	f.json = fs.Bool("json", false, "print the results as one JSON document")
	f.webhook = fs.Bool("webhook", false, "also send a test alert to the webhook")
	if _, err := parseArgs(e, cmd, fs, args, 0, 0); err != nil {
		return err
	}
	c := &checker{e: e, json: *f.json, client: httpClient(), report: checkReport{Config: *f.config}, reached: map[string]reach{}}
	cfg, err := loadConfig(*f.config, config.Needs{})
	if err != nil {
		// Printed once, as every command's error is; the --json document keeps it as its one check.
		if c.json {
			c.fail("configuration", "configuration %v", err)
		}
		return c.finish(err)
	}
	c.cfg = cfg
	werr, oerr := c.openState()
	if c.st != nil {
		defer c.st.Close()
	}
	reg, rerr := loadSites(e, cfg, c.st)
	c.pass("configuration", "configuration %s: valid, %s", *f.config, siteCount(cfg, reg))
	for _, u := range cfg.Unread {
		c.warn("configuration", "%v", u)
	}
	c.tellState(werr, oerr)
	if rerr != nil {
		return c.finish(rerr)
	}
	sites, err := pickSites(reg, f.sites)
	if err != nil {
		return c.finish(err)
	}
	if *f.webhook {
		c.webhook()
	}
	for _, s := range sites {
		c.checkSite(s)
	}
	c.site = ""
	if c.report.Failed > 0 {
		return c.finish(&exitError{code: exitFailed, err: fmt.Errorf("%s failed", human.Count(c.report.Failed, "check"))})
	}
	return c.finish(nil)
}

// finish prints the --json document, if asked, and returns err: the exit code.
func (c *checker) finish(err error) error {
	if !c.json {
		return err
	}
	c.report.OK = err == nil
	if c.report.Checks == nil {
		c.report.Checks = []checkResult{}
	}
	enc := json.NewEncoder(c.e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(c.report)
	return err
}

// siteCount tells how many sites there are, and where they come from: "2 sites in the file, 1
// created through the API". reg is nil when the sites of the state could not be loaded.
func siteCount(cfg *config.Config, reg *sites.Registry) string {
	out := human.Count(len(cfg.Sites), "site") + " in the file"
	if reg == nil {
		return out
	}
	if api := len(reg.All()) - len(cfg.Sites); api > 0 {
		out += fmt.Sprintf(", %d created through the API", api)
	}
	return out
}

// openState checks that a run could open the state and write to it (werr), and opens it to read
// (oerr): c.st, nil when it does not open.
func (c *checker) openState() (werr, oerr error) {
	werr = store.CheckWritable(c.e.ctx, c.cfg.State)
	if werr != nil && !strings.HasPrefix(c.cfg.State, "sqlite:") {
		return werr, nil // a server that did not answer is not asked again: each try may wait its timeout
	}
	c.st, oerr = store.OpenReadOnly(c.e.ctx, c.cfg.State)
	return werr, oerr
}

// tellState tells what openState found.
func (c *checker) tellState(werr, oerr error) {
	switch {
	case werr != nil:
		c.fail("state", "%v", werr)
	case oerr != nil:
		c.fail("state", "%v", oerr)
	default:
		c.pass("state", "state %s: a run can write it", c.st.Name())
	}
}

// checkSite checks one site: its channels, its sitemaps and what each channel on needs.
func (c *checker) checkSite(s *config.Site) {
	c.site = s.ID
	if !c.json {
		fmt.Fprintf(c.e.stdout, "site %s:\n", s.ID)
	}
	var on, off []string
	for _, name := range config.Channels {
		if s.Enabled(name) {
			on = append(on, name)
		} else {
			off = append(off, name)
		}
	}
	if len(on) == 0 {
		c.fail("channels", "%v", s.NothingOn())
	} else {
		c.pass("channels", "channels on: %s; off: %s", strings.Join(on, ", "), orNone(off))
	}
	for _, w := range s.Warnings() {
		c.warn("channels", "%s", w)
	}
	c.sitemaps(s)
	if s.IndexNow.Enabled {
		c.keyFile(s)
		c.endpoints(s)
	}
	if s.Bing.Enabled {
		c.bing(s)
	}
	if s.Feed.Enabled && s.Feed.Out != "" {
		c.feedOut(s)
	}
	if s.Google.Enabled {
		c.google(s)
	}
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

// sitemaps reads each sitemap of s whole, as a run would, and counts as a run does its URLs —
// those on baseUrl's host that pass the include/exclude globs — and the sitemaps read, an index
// and those it lists each one, and failed (runner.Runner.countSitemaps).
func (c *checker) sitemaps(s *config.Site) {
	r := sitemap.NewReader(runner.ReaderOptions(s, c.client, c.cfg.UserAgent))
	for _, sm := range s.Sitemaps {
		n, out := 0, 0
		lastmods := map[string]*changes.Lastmods{}
		var files []string
		res, err := r.Read(c.e.ctx, []string{sm}, func(e sitemap.Entry) error {
			if runner.InScope(s, string(e.URL)) {
				n++
				l := lastmods[e.Sitemap]
				if l == nil {
					l = &changes.Lastmods{}
					lastmods[e.Sitemap] = l
					files = append(files, e.Sitemap)
				}
				l.Add(e.Lastmod)
			} else {
				out++
			}
			return nil
		})
		if err != nil {
			c.fail("sitemap", "sitemap %s: %v", sm, err)
			continue
		}
		read, failed := 0, 0
		for _, f := range res.Sitemaps {
			if f.Err != nil {
				c.fail("sitemap", "%s", runner.SitemapFailure(f))
				failed++
				continue
			}
			read++
		}
		if res.Unreadable() {
			continue
		}
		notes := ""
		if failed > 0 {
			notes = fmt.Sprintf(" (%s failed)", human.Int(failed))
		}
		if out > 0 {
			notes += fmt.Sprintf(" (and %s outside baseUrl or the include/exclude globs, which runs leave out)", human.Int(out))
		}
		c.pass("sitemap", "sitemap %s: %s from %s%s", sm, human.Count(n, "URL"), human.Count(read, "sitemap"), notes)
		for _, f := range files {
			c.pass("sitemap", "sitemap %s: %s", f, changesVerdict(s, lastmods[f]))
		}
	}
}

// changesVerdict says how a run tells the changes of a sitemap's pages, as the runner decides it
// (docs/runs.md, "What changed").
func changesVerdict(s *config.Site, l *changes.Lastmods) string {
	switch s.Changes.Detect {
	case config.DetectLastmod:
		return "lastmod: changes.detect is lastmod, its lastmods decide"
	case config.DetectContent:
		return "content: changes.detect is content"
	}
	return l.Verdict().String()
}

// feedOut checks that feed.out's directory takes the file, as a run writes it.
func (c *checker) feedOut(s *config.Site) {
	dir := filepath.Dir(s.Feed.Out)
	probe, err := os.CreateTemp(dir, ".sitepush-check-*")
	if err != nil {
		c.fail("feed", "feed.out %s: its directory %s does not take the file (%v): create it, or give the user running sitepush write access",
			s.Feed.Out, dir, err)
		return
	}
	probe.Close()
	os.Remove(probe.Name())
	c.pass("feed", "feed.out %s: its directory takes the file", s.Feed.Out)
}

// webhook sends a test alert.
func (c *checker) webhook() {
	if c.cfg.Webhook == nil {
		c.fail("webhook", "no webhook to test: set webhook.url in the configuration")
		return
	}
	a := alert.Test("sitepush check --webhook: a test alert. Alerts about failing runs will come here.")
	if err := alert.New(c.cfg.Webhook, c.client, c.cfg.UserAgent).Send(c.e.ctx, a); err != nil {
		c.fail("webhook", "%v — check webhook.url", err)
		return
	}
	c.pass("webhook", "webhook: the test alert was accepted")
}
