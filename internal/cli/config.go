package cli

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/sites"
	"github.com/sitepush/sitepush/internal/store"
)

// configFlag adds --config to a command: the file, else $SITEPUSH_CONFIG, else ./sitepush.yaml.
func configFlag(fs *flag.FlagSet) *string {
	def := os.Getenv("SITEPUSH_CONFIG")
	if def == "" {
		def = "sitepush.yaml"
	}
	return fs.String("config", def, "the configuration `FILE` ($SITEPUSH_CONFIG, else ./sitepush.yaml)")
}

// loadConfig loads the configuration for a command that reads what needs says (a ${VAR} unset in
// a setting it does not read is no error); any problem is a usage error (exit 2: nothing was
// done). A site with no channel on is one: a run of it would send nothing and say it did well.
func loadConfig(path string, needs config.Needs) (*config.Config, error) {
	cfg, err := config.LoadFor(path, os.LookupEnv, needs)
	if err == nil {
		if err = cfg.NothingOn(); err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
	}
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return cfg, nil
}

// selectSites returns the sites named by ids — those of the file and those created through the
// admin API, which live in the state — all of them when ids is empty (see loadSites, pickSites).
func selectSites(e *env, cfg *config.Config, st *store.Store, ids []string) ([]*config.Site, error) {
	reg, err := loadSites(e, cfg, st)
	if err != nil {
		return nil, err
	}
	return pickSites(reg, ids)
}

// loadSites loads the sites of the file and, with a state, those created through the admin API.
// An API site that does not load is told on stderr and left out. Without a state (st nil: it
// does not open), the file's sites are all there is.
func loadSites(e *env, cfg *config.Config, st *store.Store) (*sites.Registry, error) {
	reg := sites.New(cfg, st, slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if st != nil {
		if err := reg.Load(e.ctx); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// pickSites returns the sites of reg named by ids, all of them when ids is empty. Ids match
// regardless of case, as the API's do.
func pickSites(reg *sites.Registry, ids []string) ([]*config.Site, error) {
	if len(ids) == 0 {
		all := reg.Sites()
		if len(all) == 0 {
			return nil, usageError("the configuration declares no sites, and none was created through the API: add one under sites:")
		}
		return all, nil
	}
	var out []*config.Site
	for _, id := range ids {
		entry, ok := reg.Get(id)
		if !ok {
			return nil, usageError("no site %q in the configuration or the state (the sites are %s)", id, siteIDs(reg.Sites()))
		}
		out = append(out, entry.Site)
	}
	return out, nil
}

// oneSite returns the site a command about one site works on: the one id names, else the only
// site there is — --site is needed only to choose among several. why says what the site is
// chosen for, for the error.
func oneSite(e *env, cfg *config.Config, st *store.Store, cmd, id, why string) (*config.Site, error) {
	var ids []string
	if id != "" {
		ids = []string{id}
	}
	sites, err := selectSites(e, cfg, st, ids)
	if err != nil {
		return nil, err
	}
	if len(sites) > 1 {
		return nil, usageError("sitepush %s needs --site ID to choose %s: there are %d sites (%s)", cmd, why, len(sites), siteIDs(sites))
	}
	return sites[0], nil
}

// onChannel keeps, of sites, those that have channel on — all of them for "all". A site chosen
// (named with --site, or the only one) that has it off is a usage error, as a run of it there
// would send nothing; of all the sites, those that have it off are left out with a note, and none
// left is a usage error.
func onChannel(e *env, sites []*config.Site, channel string, chosen bool) ([]*config.Site, error) {
	if channel == "all" {
		return sites, nil
	}
	var on, off []*config.Site
	for _, s := range sites {
		if s.Enabled(channel) {
			on = append(on, s)
		} else {
			off = append(off, s)
		}
	}
	if len(off) > 0 && chosen {
		s := off[0]
		return nil, usageError("site %s has %s off (%s.enabled is not true), so --channel %s would send nothing there: set %s.enabled: true for it "+
			"(docs/configuration.md), or choose a channel it has on: %s", s.ID, channel, channel, channel, channel, channelsOn(s))
	}
	if len(on) == 0 {
		return nil, usageError("no site has %s on (%s.enabled is not true for %s), so --channel %s would send nothing: set %s.enabled: true for a site "+
			"(docs/configuration.md), or choose another channel", channel, channel, siteIDs(off), channel, channel)
	}
	for _, s := range off {
		fmt.Fprintf(e.stderr, "note: site %s has %s off (%s.enabled is not true): left out of --channel %s\n", s.ID, channel, channel, channel)
	}
	return on, nil
}

// channelsOn lists the channels site has on (a site has one: loadConfig and the API refuse one
// without).
func channelsOn(site *config.Site) string {
	var on []string
	for _, name := range config.Channels {
		if site.Enabled(name) {
			on = append(on, name)
		}
	}
	return strings.Join(on, ", ")
}

func siteIDs(all []*config.Site) string {
	if len(all) == 0 {
		return "none"
	}
	ids := make([]string, len(all))
	for i, s := range all {
		ids[i] = s.ID
	}
	return strings.Join(ids, ", ")
}

// stringList is a flag that may be given several times.
type stringList []string

func (l *stringList) String() string     { return "" }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// readSite loads the configuration at path, as a command that needs what needs names, opens its
// state to read, and returns the site id names, or the one choose picks when id is ""; the
// caller closes the state.
func readSite(e *env, path, id string, needs config.Needs, choose siteChooser) (*store.Store, *config.Site, error) {
	cfg, err := loadConfig(path, needs)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.OpenReadOnly(e.ctx, cfg.State)
	if err != nil {
		return nil, nil, err
	}
	site, err := chooseSite(e, cfg, st, id, choose)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, site, nil
}

// chooseSite returns the site id names, else the one choose picks of them all.
func chooseSite(e *env, cfg *config.Config, st *store.Store, id string, choose siteChooser) (*config.Site, error) {
	if id != "" {
		sites, err := selectSites(e, cfg, st, []string{id})
		if err != nil {
			return nil, err
		}
		return sites[0], nil
	}
	all, err := selectSites(e, cfg, st, nil)
	if err != nil {
		return nil, err
	}
	return choose(all)
}
