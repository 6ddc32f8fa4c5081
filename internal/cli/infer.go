package cli

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
)

// siteChooser picks, of all the sites there are, the one a command is about when --site is not
// given, or says why it cannot: the error names the candidates and asks for --site.
type siteChooser func(all []*config.Site) (*config.Site, error)

// siteOfURL chooses the site whose baseUrl has the host of rawURL, as a run compares hosts (with
// the port, in lower case); when none has it exactly, the site whose host differs only by "www.".
// The only site there is needs no match: a URL it never listed is told as such.
func siteOfURL(cmd, rawURL string) siteChooser {
	return func(all []*config.Site) (*config.Site, error) {
		u, err := url.Parse(rawURL)
		if err != nil || u.Host == "" {
			if len(all) == 1 {
				return all[0], nil
			}
			return nil, usageError("sitepush %s needs --site ID, or a whole URL (https://host/path) to find the site by its host; the sites are %s", cmd, siteIDs(all))
		}
		host := strings.ToLower(u.Host)
		for _, match := range []func(string) bool{
			func(h string) bool { return h == host },
			func(h string) bool { return strings.TrimPrefix(h, "www.") == strings.TrimPrefix(host, "www.") },
		} {
			var found []*config.Site
			for _, s := range all {
				if match(s.Host()) {
					found = append(found, s)
				}
			}
			if len(found) == 1 {
				return found[0], nil
			}
			if len(found) > 1 {
				return nil, usageError("sitepush %s needs --site ID: %d sites have the host %s (%s); pass --site with one of them", cmd, len(found), host, siteIDs(found))
			}
		}
		if len(all) == 1 {
			return all[0], nil
		}
		return nil, usageError("sitepush %s needs --site ID: no site has the host %s; the sites are %s", cmd, host, sitesAndHosts(all))
	}
}

// siteWithFeed chooses the only site with its feed on, else the only site there is.
func siteWithFeed(cmd string) siteChooser {
	return func(all []*config.Site) (*config.Site, error) {
		var on []*config.Site
		for _, s := range all {
			if s.Feed.Enabled {
				on = append(on, s)
			}
		}
		switch {
		case len(on) == 1:
			return on[0], nil
		case len(on) > 1:
			return nil, usageError("sitepush %s needs --site ID: %d sites have a feed (%s); pass --site with one of them", cmd, len(on), siteIDs(on))
		case len(all) == 1:
			return all[0], nil
		}
		return nil, usageError("sitepush %s needs --site ID: no site has its feed on (feed.enabled: true); the sites are %s", cmd, siteIDs(all))
	}
}

// sitesAndHosts lists sites with their hosts: "blog (blog.example.com), shop (shop.example.com)".
func sitesAndHosts(all []*config.Site) string {
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = fmt.Sprintf("%s (%s)", s.ID, s.Host())
	}
	return strings.Join(out, ", ")
}
