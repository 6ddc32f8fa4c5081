package runner

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
)

// MaxURLLength is the longest URL a user may choose to submit: what the engines accept.
const MaxURLLength = 2048

// Refused says why a run of site would not take a URL a user chose to submit (sitepush submit,
// POST /api/sites/{id}/urls), "" when it would: the reasons name the rule.
func Refused(site *config.Site, u string) string {
	p, err := url.Parse(u)
	switch {
	case len(u) > MaxURLLength:
		return fmt.Sprintf("longer than %d characters", MaxURLLength)
	case err != nil || p.Scheme != "http" && p.Scheme != "https" || p.Host == "":
		return "not an absolute http(s) URL"
	case p.User != nil:
		return "has user information (user@): a page's URL has none; write it without"
	case strings.Contains(u, "#"):
		return "has a fragment (#…), which is no part of the page's URL: write it without"
	case strings.ContainsAny(u, " \t"):
		return "has a space: write it %20, as the sitemaps do"
	case !strings.EqualFold(p.Host, site.Host()):
		return fmt.Sprintf("on host %s, not the site's (%s): engines refuse URLs of another host under the site's key", p.Host, site.Host())
	case !InScope(site, u):
		return "left out by the site's include/exclude globs"
	}
	return ""
}
