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
	// file is a secret that is a file of the server's, named by its path: no request can give
	// it, as knowing the path is not knowing the content.
	file   bool
	secret func(*config.Settings) string
	dests  func(*config.Settings) []string
}

// secretRoutes are the secrets an API site sends. The API shows the keys masked, so a client that
// moved a destination and gave a key back masked (or left it to the defaults) would have the
// server send it, whole, to a place the client chose; and the Google credentials, a key file of
// the server's, would have it send a working access token there.
var secretRoutes = []secretRoute{
	{block: "bing", key: "apiKey", dest: "endpoint", name: "the Bing API key",
		secret: func(s *config.Settings) string { return s.Bing.APIKey },
		dests:  func(s *config.Settings) []string { return []string{s.Bing.Endpoint} }},
	{block: "indexnow", key: "key", dest: "endpoints", name: "the IndexNow key",
		secret: func(s *config.Settings) string { return s.IndexNow.Key },
		dests:  func(s *config.Settings) []string { return s.IndexNow.Endpoints }},
	{block: "google", key: "credentials", dest: "endpoint", name: "an access token of the Google credentials", file: true,
		secret: func(s *config.Settings) string {
			if !s.Google.Enabled {
				return ""
			}
			return s.Google.Credentials
		},
		dests: func(s *config.Settings) []string { return []string{s.Google.Endpoint} }},
}

// keepSecretsHome refuses a site that would send a secret to a destination it did not go to
// before, unless the request gives that secret itself, in full: who chooses where a secret goes
// must know it. A secret given back masked, inherited from the defaults, or held in a file of the
// server's (which no request can give), goes only where the site sent it before, where the file's
// defaults send secrets, or where the file's sites send that secret: whichever site holds it, it
// goes to no destination a client chose. given is the request's body as the client sent it;
// before is the site as it was, nil for a new one.
func (r *Registry) keepSecretsHome(given map[string]any, site, before *config.Site) error {
	for _, rt := range secretRoutes {
		secret := rt.secret(&site.Settings)
		if secret == "" || !rt.file && givenInFull(given, rt, before) {
			continue
		}
		// Where the configuration file sends secrets, its author chose: never a client.
		allowed := slices.Clone(rt.dests(&r.cfg.Defaults))
		for i := range r.cfg.Sites {
			if fs := &r.cfg.Sites[i].Settings; rt.secret(fs) == secret {
				allowed = append(allowed, rt.dests(fs)...)
			}
		}
		if before != nil && rt.secret(&before.Settings) == secret {
			allowed = append(allowed, rt.dests(&before.Settings)...)
		}
		for _, d := range rt.dests(&site.Settings) {
			switch {
			case slices.Contains(allowed, d):
			case rt.file:
				return errorOf(ErrInvalid, "site %q: %s.%s %s would receive %s %s: a request cannot give the key file's content, "+
					"so those credentials are only used with the %s.%s the site had, or one the configuration file gives (in its defaults, "+
					"or on a site of the file with the same %s.%s): leave %s.%s as it was, or declare the site in the configuration file",
					site.ID, rt.block, rt.dest, quoted(d), rt.name, quoted(secret), rt.block, rt.dest, rt.block, rt.key, rt.block, rt.dest)
			default:
				return errorOf(ErrInvalid, "site %q: %s.%s %s would receive %s, which this request does not give: "+
					"give %s.%s again, in full, with the new %s.%s (a key given back masked, or inherited from the defaults, "+
					"is only sent where it went before, or where the configuration file sends it)", site.ID, rt.block, rt.dest, quoted(d), rt.name, rt.block, rt.key, rt.block, rt.dest)
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
