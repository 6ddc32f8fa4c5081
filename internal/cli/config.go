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
// admin API, which live in the state — all of them when ids is empty. Ids match regardless of
// case, as the API's do. An API site that does not load is told on stderr and left out. Without
// a state (st nil: it does not open), the file's sites are all there is.
func selectSites(e *env, cfg *config.Config, st *store.Store, ids []string) ([]*config.Site, error) {
	reg := sites.New(cfg, st, slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if st != nil {
		if err := reg.Load(e.ctx); err != nil {
			return nil, err
		}
	}
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
// state to read, and returns the site id; the caller closes the state.
func readSite(e *env, path, id string, needs config.Needs) (*store.Store, *config.Site, error) {
	cfg, err := loadConfig(path, needs)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.OpenReadOnly(e.ctx, cfg.State)
	if err != nil {
		return nil, nil, err
	}
	sites, err := selectSites(e, cfg, st, []string{id})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, sites[0], nil
}
