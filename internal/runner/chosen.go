package runner

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
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
	case p.Scheme != site.Scheme():
		return fmt.Sprintf("%s://, not %s:// as the site's baseUrl: the site's pages are at %s://; write it so", p.Scheme, site.Scheme(), site.Scheme())
	case !InScope(site, u):
		return "left out by the site's include/exclude globs"
	}
	return ""
}

// firstRunDone returns ErrFirstRunPending, explained, when the first run of channel name, whose
// backlog setting is not all, has not happened: the site never ran, or its first read of the
// sitemaps goes on over several runs and none of the pages read so far is known on the channel.
// Chosen URLs sent now would make that first run send every URL.
func (r *Runner) firstRunDone(ctx context.Context, site *config.Site, name string) error {
	last, err := r.lastRun(ctx, site.ID)
	if err != nil {
		return err
	}
	if last.StartedAt.IsZero() {
		return fmt.Errorf("%w: site %q has backlog %s on %s and never ran, so chosen URLs sent now would make its first run send every URL: "+
			"run it first (sitepush run --site %s, or POST /trigger?site=%s), then submit", ErrFirstRunPending, site.ID, site.BacklogOf(name), name, site.ID, site.ID)
	}
	known, read, err := r.knownInUnfinishedRead(ctx, site, name)
	if err != nil || !read || known {
		return err
	}
	return fmt.Errorf("%w: site %q has backlog %s on %s and its first run reads the sitemaps over several runs (its budget cut the read short), "+
		"so chosen URLs sent now would make the run that ends the read send every URL: run it until it reports ok (sitepush run --site %s), then submit",
		ErrFirstRunPending, site.ID, site.BacklogOf(name), name, site.ID)
}

// knownInUnfinishedRead reports whether a read of the site's sitemaps goes on over several runs
// (read), and whether any page it read so far is known on channel name.
func (r *Runner) knownInUnfinishedRead(ctx context.Context, site *config.Site, name string) (known, read bool, err error) {
	all, err := r.State.SitemapMemos(ctx, site.ID)
	if err != nil {
		return false, false, err
	}
	scope := scopeOf(site, nil)
	for _, memo := range all {
		if !memo.Unfinished || !sameFilter(memo.Scope, scope) {
			continue
		}
		b, err := r.State.SitemapPages(ctx, site.ID, memo.Sitemap)
		if err != nil {
			return false, true, err
		}
		read = true // a damaged memo too: the read goes on, and reads its sitemap again
		if !wholePages(b) {
			continue
		}
		var pages []channel.Page
		for p := range pagesOf(b) {
			if pages = append(pages, channel.Page{Hash: p.hash}); len(pages) == lookUpBatch {
				if known, err = r.anyKnown(ctx, site.ID, pages, name); err != nil || known {
					return known, true, err
				}
				pages = pages[:0]
			}
		}
		if known, err = r.anyKnown(ctx, site.ID, pages, name); err != nil || known {
			return known, true, err
		}
	}
	return false, read, nil
}

// anyKnown reports whether any of pages is known on channel name, writing nothing.
func (r *Runner) anyKnown(ctx context.Context, site string, pages []channel.Page, name string) (bool, error) {
	states, err := r.State.SyncCatalog(ctx, site, r.now(), pages, []string{name}, true)
	return slices.ContainsFunc(states, func(st model.DeliveryState) bool { return st.Known }), err
}
