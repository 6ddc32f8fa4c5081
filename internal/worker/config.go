package worker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sitepush/sitepush/internal/config"
)

// loadConfig reads the configuration from the Worker's vars, with the file's rules and messages
// and the Worker's own: no state (it is the KV namespace), no file to read or write, no listen.
// ${NAME} is taken from the Worker's vars and secrets. The Worker reads every setting, as serve
// does: it answers the admin routes with adminToken, and runs every channel; so an unset variable
// is an error wherever it is, and the Worker runs nothing until it is set. Its feeds are served
// at its own /feeds/{id}.xml, which their self link names (publicUrl's, or the request's origin).
func loadConfig(vars func(string) (string, bool)) (*config.Config, int, error) {
	text, ok := vars(ConfigVar)
	if !ok || strings.TrimSpace(text) == "" {
		return nil, 0, fmt.Errorf("%s is not set: put the configuration in it (YAML, or JSON on one line) — in wrangler.toml's [vars], "+
			"or in .dev.vars for wrangler dev; see docs/cloudflare.md", ConfigVar)
	}
	subrequests, err := subrequestsOf(vars)
	if err != nil {
		return nil, 0, err
	}
	if err := workerKeys(text); err != nil {
		return nil, 0, err
	}
	served := config.Everything
	served.FeedsServed = true
	cfg, err := config.ParseFor([]byte(text), "", vars, served)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", ConfigVar, err)
	}
	var errs []error
	for i := range cfg.Sites {
		errs = append(errs, workerSite(&cfg.Sites[i]), cfg.Sites[i].NothingOn())
	}
	if err := errors.Join(errs...); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", ConfigVar, err)
	}
	return cfg, subrequests, nil
}

// subrequestsOf reads SITEPUSH_SUBREQUESTS: 1 to 10,000, the Paid plan's most.
func subrequestsOf(vars func(string) (string, bool)) (int, error) {
	v, ok := vars(SubrequestsVar)
	if !ok || v == "" {
		return DefaultSubrequests, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 10_000 {
		return 0, fmt.Errorf("%s %q must be a whole number from 1 to 10000: the requests one invocation may make "+
			"(50 on the Free plan, 10,000 on the Paid plan; keep a margin)", SubrequestsVar, v)
	}
	return n, nil
}

// workerKeys refuses the top-level keys that mean nothing on Workers.
func workerKeys(text string) error {
	var top map[string]any
	if err := yaml.Unmarshal([]byte(text), &top); err != nil {
		return nil // the configuration's parser says what is wrong, with the line
	}
	var errs []error
	for _, k := range []struct{ key, why string }{
		{"state", "the Worker's state is the KV namespace bound as STATE in wrangler.toml"},
		{"listen", "the Worker answers on its own routes"},
		{"metricsToken", "the Worker has no /metrics"},
		{"metrics", "the Worker has no /metrics"},
		{"serve", "the Worker runs one tick's due sites itself"},
	} {
		if _, ok := top[k.key]; ok {
			errs = append(errs, fmt.Errorf("%s: %s: is not used by the Worker (%s); remove it", ConfigVar, k.key, k.why))
		}
	}
	return errors.Join(errs...)
}

// workerSite refuses what a site cannot do on Workers: read a file or a directory, write a file, talk to Google.
func workerSite(s *config.Site) error {
	var errs []error
	for i, sm := range s.Sitemaps {
		if !strings.HasPrefix(sm, "http://") && !strings.HasPrefix(sm, "https://") {
			errs = append(errs, fmt.Errorf("site %q: sitemaps[%d] %q must be an http(s) URL: the Worker has no files", s.ID, i, sm))
		}
	}
	if s.Feed.Out != "" {
		errs = append(errs, fmt.Errorf("site %q: feed.out cannot be written by the Worker, which has no files: readers find the feed at /feeds/%s.xml", s.ID, s.ID))
	}
	if s.Changes.Dir != "" {
		errs = append(errs, fmt.Errorf("site %q: changes.dir cannot be read by the Worker, which has no files: it fetches the pages it checks; remove changes.dir", s.ID))
	}
	if s.Google.Enabled {
		errs = append(errs, fmt.Errorf("site %q: google.enabled: the Worker does not talk to Google (its key file is a file, and its state keeps no inspections); run sitepush run or serve for Google, or set google.enabled: false", s.ID))
	}
	return errors.Join(errs...)
}
