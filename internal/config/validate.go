package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// problems collects the validation messages of one scope (the top level, the defaults or a site),
// without the scope's label, in the order the fields are checked. A rule about one field is
// reported only in the scope that wrote the field (own), so that a bad value in defaults is
// reported once, for the defaults, and a site's own mistake is never hidden.
type problems struct {
	own  keySet
	msgs []string
}

// addf adds a problem reported whatever the scope inherited: a top-level value, a required key, a
// rule about the whole site.
func (p *problems) addf(format string, args ...any) {
	p.msgs = append(p.msgs, fmt.Sprintf(format, args...))
}

// fieldf adds a problem with the value at field, when the scope wrote that value itself.
func (p *problems) fieldf(field, format string, args ...any) {
	if p.own.has(field) {
		p.addf(format, args...)
	}
}

// wrote reports whether the scope wrote any of the fields, for rules between fields: when it wrote
// none of them, the scope it inherited them from has the same values and reports the problem.
func (p *problems) wrote(fields ...string) bool {
	for _, f := range fields {
		if p.own.has(f) {
			return true
		}
	}
	return false
}

// shown formats the value of field for a rule between fields, saying when it was inherited.
func (p *problems) shown(field string, v any) string {
	if p.own.has(field) {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v, inherited", v)
}

// between checks an integer range; why, when not empty, says where the bounds come from.
func (p *problems) between(field string, v, lo, hi int64, why string) {
	if v < lo || v > hi {
		if why != "" {
			why = " (" + why + ")"
		}
		p.fieldf(field, "%s must be between %d and %d%s, got %d", field, lo, hi, why, v)
	}
}

func (p *problems) positive(field string, d Duration) {
	if d <= 0 {
		p.fieldf(field, "%s must be more than 0, got %s", field, d)
	}
}

func (p *problems) notNegative(field string, d Duration) {
	if d < 0 {
		p.fieldf(field, "%s must be 0 or more, got %s", field, d)
	}
}

// labelled turns a scope's messages into errors that start with its label.
func labelled(label string, p problems) []error {
	var errs []error
	for _, m := range p.msgs {
		if label != "" {
			m = label + ": " + m
		}
		errs = append(errs, errors.New(m))
	}
	return errs
}

// validate checks the whole configuration and prepares every site. The tree tells which keys the
// defaults and each site wrote themselves, and where each site starts.
func (c *Config) validate(root *yaml.Node, needs Needs) error {
	var top problems
	checkState(c.State, &top)
	checkListen(c.Listen, &top)
	checkPublicURL(c.PublicURL, &top)
	checkUserAgent(c.UserAgent, &top)
	checkWebhook(c.Webhook, &top)
	c.Metrics.check(&top)
	checkServe(c.Serve, &top)
	errs := labelled("", top)
	defaults := problems{own: keysOf(lookup(root, keyDefaults))}
	c.defaultsGiven = defaults.own
	checkSettings(&c.Defaults, &defaults)
	errs = append(errs, labelled(keyDefaults, defaults)...)
	nodes := siteNodes(root)
	seen := taken{ids: map[string]int{}, outs: map[string]int{}}
	for i := range c.Sites {
		s := &c.Sites[i]
		own := keysOf(nodes[i])
		s.unread = c.unreadOf(i, own)
		s.given = own.with(c.defaultsGiven)
		if needs.FeedsServed && s.Feed.URL == "" {
			s.feedServed = true
			if c.PublicURL != "" {
				s.Feed.URL = c.ServedFeedURL(s.ID)
			}
		}
		p := s.prepare(own)
		c.checkChangesDir(s, &p)
		c.checkTaken(i, nodes, seen, &p)
		errs = append(errs, labelled(siteLabel(s.ID, i), p)...)
	}
	return errors.Join(errs...)
}

// taken holds the first site of the file with each id, in lower case, and with each enabled
// feed's file (fileKey): each site is checked against those before it in one look-up.
type taken struct {
	ids, outs map[string]int
}

// checkTaken reports an id or a feed file of site i that an earlier site already has, naming the
// first site that has it.
func (c *Config) checkTaken(i int, nodes []*yaml.Node, seen taken, p *problems) {
	s := &c.Sites[i]
	if s.ID != "" {
		// Lower case, as EqualFold compares ids: they end up in URL paths and in file names, and
		// some file systems ignore case.
		key := strings.ToLower(s.ID)
		if j, ok := seen.ids[key]; ok {
			idTaken(s, &c.Sites[j], nodes[j].Line, p)
		} else {
			seen.ids[key] = i
		}
	}
	// A disabled feed writes nothing.
	if s.Feed.Enabled && s.Feed.Out != "" {
		key := fileKey(s.Feed.Out)
		if j, ok := seen.outs[key]; ok {
			outTaken(s, siteLabel(c.Sites[j].ID, j), nodes[j].Line, p)
		} else {
			seen.outs[key] = i
		}
	}
}

// idTaken reports that site s has the id of an earlier site, whatever its case.
func idTaken(s, earlier *Site, line int, p *problems) {
	if s.ID == earlier.ID {
		p.addf("id %q is already used by the site at line %d; give each site its own id", s.ID, line)
		return
	}
	p.addf("id %q is already used, as %q, by the site at line %d: ids that differ only by case are the same "+
		"(they appear in URLs and file names); give each site its own id", s.ID, earlier.ID, line)
}

// outTaken reports that site s writes its feed to the file of an earlier site's enabled feed,
// the site labelled label: two sites writing one file would overwrite each other's feed after
// every run.
func outTaken(s *Site, label string, line int, p *problems) {
	inherited := ""
	if !p.own.has("feed.out") {
		inherited = " (inherited)"
	}
	p.addf("feed.out %q%s is also written by %s (line %d); give each site its own file", s.Feed.Out, inherited, label, line)
}

// fileKey is how a file is known whatever its spelling: its path cleaned and absolute, through
// the symbolic links to it or to its directory (the file itself may not exist yet).
func fileKey(p string) string {
	p = filepath.Clean(p)
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

// Validate derives the values that default to others (baseUrl, indexnow.keyLocation, the feed's
// title and description), checks every field of the site, and prepares Cron and PathAllowed. It is
// what Load does for each site of the file, exported so that sites created at runtime through the
// API get the same rules and messages. The site should already hold its inherited settings.
func (s *Site) Validate() error {
	label := "site"
	if s.ID != "" {
		label = siteLabel(s.ID, 0)
	}
	return errors.Join(labelled(label, s.prepare(nil))...)
}
