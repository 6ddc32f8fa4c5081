package sites

import (
	"fmt"
	"slices"

	"github.com/sitepush/sitepush/internal/config"
)

// keepSecretsHome refuses a site that would send a secret (config.Credentials) to a destination
// it did not go to before, unless the request gives that secret itself, in full: who chooses
// where a secret goes must know it. The API shows the keys masked, so a client that moved a
// destination and gave a key back masked (or left it to the defaults) would otherwise have the
// server send it, whole, to a place the client chose; and the Google credentials, a key file of
// the server's, would have it send a working access token there. A secret given back masked, inherited from the defaults, or held in a file of the
// server's (which no request can give), goes only where the site sent it before, where the file's
// defaults send secrets, or where the file's sites send that secret: whichever site holds it, it
// goes to no destination a client chose. given is the request's body as the client sent it;
// before is the site as it was, nil for a new one.
func (r *Registry) keepSecretsHome(given map[string]any, site, before *config.Site) error {
	for _, rt := range config.Credentials {
		secret := rt.Sent(&site.Settings)
		if secret == "" || !rt.File && givenInFull(given, rt, before) {
			continue
		}
		// Where the configuration file sends secrets, its author chose: never a client.
		allowed := slices.Clone(rt.Dests(&r.cfg.Defaults))
		for i := range r.cfg.Sites {
			if fs := &r.cfg.Sites[i].Settings; rt.Sent(fs) == secret {
				allowed = append(allowed, rt.Dests(fs)...)
			}
		}
		if before != nil && rt.Sent(&before.Settings) == secret {
			allowed = append(allowed, rt.Dests(&before.Settings)...)
		}
		for _, d := range rt.Dests(&site.Settings) {
			switch {
			case slices.Contains(allowed, d):
			case rt.File:
				return errorOf(ErrInvalid, "site %q: %s.%s %s would receive %s %s: a request cannot give the key file's content, "+
					"so those credentials are only used with the %s.%s the site had, or one the configuration file gives (in its defaults, "+
					"or on a site of the file with the same %s.%s): leave %s.%s as it was, or declare the site in the configuration file",
					site.ID, rt.Block, rt.Dest, quoted(d), rt.Name, quoted(secret), rt.Block, rt.Dest, rt.Block, rt.Key, rt.Block, rt.Dest)
			default:
				return errorOf(ErrInvalid, "site %q: %s.%s %s would receive %s, which this request does not give: "+
					"give %s.%s again, in full, with the new %s.%s (a key given back masked, or inherited from the defaults, "+
					"is only sent where it went before, or where the configuration file sends it)", site.ID, rt.Block, rt.Dest, quoted(d), rt.Name, rt.Block, rt.Key, rt.Block, rt.Dest)
			}
		}
	}
	return nil
}

// givenInFull reports whether the body gives the secret rt itself: not left out, and not
// masked as the API shows the site's own.
func givenInFull(given map[string]any, rt *config.Credential, before *config.Site) bool {
	block, _ := given[rt.Block].(map[string]any)
	v, _ := block[rt.Key].(string)
	if v == "" {
		return false
	}
	return before == nil || !config.IsMasked(v, rt.Sent(&before.Settings))
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }
