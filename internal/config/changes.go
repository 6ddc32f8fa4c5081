package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Changes says how a run tells a changed page from an unchanged one (docs/configuration.md,
// "changes"): many sitemaps give no lastmod, or stamp every URL with the build's time, and a
// lastmod that does not tell pages apart would send every page again at every build.
type Changes struct {
	// Detect is what a change is: a moved lastmod, a different content, or (auto) the first for
	// a sitemap whose lastmods tell pages apart and the second for the others.
	Detect Detect `yaml:"detect" json:"detect"`
	// ChecksPerRun bounds the pages a run fetches, or reads from Dir, to tell whether they
	// changed: each fetch costs the site a request and the run some of its budget.
	ChecksPerRun int `yaml:"checksPerRun" json:"checksPerRun"`
	// Dir is the directory the site is built into, its pages read from there rather than
	// fetched: a build in CI knows the new content before it is deployed. It belongs to one site
	// (never the defaults), names a directory of the machine that runs sitepush, and so is only
	// the configuration file's to give.
	Dir string `yaml:"dir" json:"dir,omitempty"`
}

// Detect is changes.detect: auto, lastmod or content.
type Detect string

// The values of changes.detect.
const (
	// DetectAuto trusts lastmod on a sitemap whose lastmods tell pages apart, and checks the
	// content of the pages of the others (no lastmod, or a build's stamp on most URLs).
	DetectAuto Detect = "auto"
	// DetectLastmod takes a URL for changed when its lastmod moves: no page is looked at.
	DetectLastmod Detect = "lastmod"
	// DetectContent takes a URL for changed when its page's content differs from what the
	// channel last delivered; lastmod only orders the checks.
	DetectContent Detect = "content"
)

// detects are the values of changes.detect, in the order messages list them.
var detects = []string{string(DetectAuto), string(DetectLastmod), string(DetectContent)}

// maxChecksPerRun bounds changes.checksPerRun: more checks than this a run is a typo more likely
// than a plan, and would spend the run's budget on fetches rather than on submissions.
const maxChecksPerRun = 100_000

// The key paths of the changes block the rules name, from the struct tags.
var (
	keyDetect       = settingKey(func(s *Settings) any { return &s.Changes.Detect })
	keyChecksPerRun = settingKey(func(s *Settings) any { return &s.Changes.ChecksPerRun })
	keyChangesDir   = settingKey(func(s *Settings) any { return &s.Changes.Dir })
)

// siteOnly says why a setting of the defaults' type belongs to each site alone, "" when the
// defaults may give it: changes.dir is the directory one site is built into.
func siteOnly(path string) string {
	if path == keyChangesDir {
		return "it is the directory one site is built into"
	}
	return ""
}

// checkChanges checks the values of the changes block a scope may inherit: the defaults or a site.
func checkChanges(c *Changes, p *problems) {
	switch c.Detect {
	case DetectAuto, DetectLastmod, DetectContent:
	default:
		hint := ""
		if s := suggest(string(c.Detect), detects); s != "" {
			hint = fmt.Sprintf("; did you mean %q?", s)
		}
		p.fieldf(keyDetect, "%s must be %s, got %q%s", keyDetect, orList(detects), string(c.Detect), hint)
	}
	if c.ChecksPerRun == 0 {
		p.fieldf(keyChecksPerRun, "%s must be 1 or more: the pages a run looks at to tell whether they changed; "+
			"to look at none, set %s: %s", keyChecksPerRun, keyDetect, DetectLastmod)
		return
	}
	p.between(keyChecksPerRun, int64(c.ChecksPerRun), 1, maxChecksPerRun, "the pages a run fetches or reads from "+leaf(keyChangesDir)+" at most")
}

// checkChangesDir checks that a site's changes.dir is a directory, for a site of a configuration
// file. A configuration read from no file (Parse with dir "": the Worker's, from its vars) has
// no directory of its own to look in, and the Worker refuses the key itself. A site of the API
// is never looked for (ParseSite does not call this): internal/sites refuses the key with one
// answer whether the directory exists or not, so that the API tells nothing of the server's files.
func (c *Config) checkChangesDir(s *Site, p *problems) {
	if s.Changes.Dir == "" || c.Dir == "" {
		return
	}
	const fix = "give the directory the site is built into, holding its pages (a relative path is resolved against the configuration file's directory), and build the site before sitepush runs"
	info, err := os.Stat(s.Changes.Dir)
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err // the message names the path already
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.addf("%s %q does not exist; %s", keyChangesDir, s.Changes.Dir, fix)
	case err != nil:
		p.addf("%s %q cannot be read: %v; give a directory the user that runs sitepush can read", keyChangesDir, s.Changes.Dir, err)
	case !info.IsDir():
		p.addf("%s %q is a file, not a directory; %s", keyChangesDir, s.Changes.Dir, fix)
	}
}

// Checks reports whether runs of the site may check pages' content: changes.detect is auto or
// content. A site built without its defaults (Detect "") checks none, as with lastmod.
func (c Changes) Checks() bool { return c.Detect == DetectAuto || c.Detect == DetectContent }
