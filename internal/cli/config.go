package cli

import (
	"flag"
	"os"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
)

// configFlag adds --config to a command: the file, else $SITEPUSH_CONFIG, else ./sitepush.yaml.
func configFlag(fs *flag.FlagSet) *string {
	def := os.Getenv("SITEPUSH_CONFIG")
	if def == "" {
		def = "sitepush.yaml"
	}
	return fs.String("config", def, "the configuration `FILE` ($SITEPUSH_CONFIG, else ./sitepush.yaml)")
}

// loadConfig loads the configuration; any problem is a usage error (exit 2: nothing was done).
func loadConfig(path string) (*config.Config, error) {
	cfg, err := config.Load(path, os.LookupEnv)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return cfg, nil
}

// selectSites returns the sites named by ids, all of them when ids is empty.
func selectSites(cfg *config.Config, ids []string) ([]*config.Site, error) {
	if len(ids) == 0 {
		out := make([]*config.Site, len(cfg.Sites))
		for i := range cfg.Sites {
			out[i] = &cfg.Sites[i]
		}
		if len(out) == 0 {
			return nil, usageError("the configuration declares no sites: add one under sites:")
		}
		return out, nil
	}
	var out []*config.Site
	for _, id := range ids {
		s, ok := cfg.Site(id)
		if !ok {
			return nil, usageError("no site %q in the configuration (the sites are %s)", id, siteIDs(cfg))
		}
		out = append(out, s)
	}
	return out, nil
}

func siteIDs(cfg *config.Config) string {
	ids := make([]string, len(cfg.Sites))
	for i, s := range cfg.Sites {
		ids[i] = s.ID
	}
	return strings.Join(ids, ", ")
}

// stringList is a flag that may be given several times.
type stringList []string

func (l *stringList) String() string     { return "" }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }
