package sites

import (
	"fmt"
	"slices"

	"github.com/sitepush/sitepush/internal/config"
)

// secretRoute is a secret a site sends, and where it sends it: the JSON keys of its block, the
// secret and the destination.
type secretRoute struct {
	block, key, dest string
	name             string // the secret, for messages
	secret           func(*config.Settings) string
	dests            func(*config.Settings) []string
}

// secretRoutes are the secrets an API site sends. The API shows them masked, so a client that
// moved a destination and gave a secret back masked (or left it to the defaults) would have the
// server send it, whole, to a place the client chose.
var secretRoutes = []secretRoute{
	{block: "bing", key: "apiKey", dest: "endpoint", name: "the Bing API key",
		secret: func(s *config.Settings) string { return s.Bing.APIKey },
		dests:  func(s *config.Settings) []string { return []string{s.Bing.Endpoint} }},
	{block: "indexnow", key: "key", dest: "endpoints", name: "the IndexNow key",
		secret: func(s *config.Settings) string { return s.IndexNow.Key },
		dests:  func(s *config.Settings) []string { return s.IndexNow.Endpoints }},
}

// keepSecretsHome refuses a site that would send a secret to a destination it did not go to
// before, unless the request gives that secret itself, in full: who chooses where a secret goes
// must know it. A secret given back masked, or inherited from the defaults, goes only where the
// site sent it before or where the file's defaults send secrets. given is the request's body as
// the client sent it; before is the site as it was, nil for a new one.
func (r *Registry) keepSecretsHome(given map[string]any, site, before *config.Site) error {
	for _, rt := range secretRoutes {
		secret := rt.secret(&site.Settings)
		if secret == "" || givenInFull(given, rt, before) {
			continue
		}
		// Where the configuration file's defaults send secrets, its author chose: never a client.
		allowed := slices.Clone(rt.dests(&r.cfg.Defaults))
		if before != nil && rt.secret(&before.Settings) == secret {
			allowed = append(allowed, rt.dests(&before.Settings)...)
		}
		for _, d := range rt.dests(&site.Settings) {
			if !slices.Contains(allowed, d) {
				return errorOf(ErrInvalid, "site %q: %s.%s %s would receive %s, which this request does not give: "+
					"give %s.%s again, in full, with the new %s.%s (a key given back masked, or inherited from the defaults, "+
					"is only sent where it went before, or where the configuration file's defaults send it)", site.ID, rt.block, rt.dest, quoted(d), rt.name, rt.block, rt.key, rt.block, rt.dest)
			}
		}
	}
	return nil
}

// givenInFull reports whether the body gives the route's secret itself: not left out, and not
// masked as the API shows the site's own.
func givenInFull(given map[string]any, rt secretRoute, before *config.Site) bool {
	block, _ := given[rt.block].(map[string]any)
	v, _ := block[rt.key].(string)
	if v == "" {
		return false
	}
	return before == nil || !config.IsMasked(v, rt.secret(&before.Settings))
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }
