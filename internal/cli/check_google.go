package cli

import (
	"errors"
	"fmt"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/google"
)

// google checks the service account's key file and its permission on the property, with one
// sites.get: submitting sitemaps needs an owner or full user.
func (c *checker) google(s *config.Site) {
	g := s.Google
	api, err := google.NewAPI(c.e.ctx, g, c.client)
	if err != nil {
		c.fail("google", "Google: %v", err)
		return
	}
	level, err := api.Site(c.e.ctx)
	switch {
	case errors.Is(err, google.ErrForbidden):
		c.fail("google", "Google Search Console refused the property %s (%v): %s", g.Property, err, api.Forbidden())
	case err != nil:
		c.fail("google", "Google Search Console at %s: %v — check google.endpoint, google.credentials and the network", g.Endpoint, err)
	case level != "siteOwner" && level != "siteFullUser" && g.Sitemaps:
		c.fail("google", "Google Search Console: the service account is %s of %s, which cannot submit sitemaps: %s", level, g.Property, api.Forbidden())
	default:
		c.pass("google", "Google Search Console: the service account %s is %s of %s%s", api.Email, level, g.Property, inspections(g))
	}
}

// inspections tells what the site's URL inspections are.
func inspections(g config.Google) string {
	if !g.Inspect {
		return ""
	}
	return fmt.Sprintf("; up to %d URL inspections a day", g.InspectPerDay)
}
