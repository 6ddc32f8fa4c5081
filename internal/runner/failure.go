package runner

import (
	"fmt"

	"github.com/sitepush/sitepush/internal/sitemap"
)

// SitemapFailure tells that a sitemap could not be read, why, and what to fix: the index that
// lists it, when one does (a site's sitemaps setting names only the index), else the site's
// sitemaps entry, or the server. A run records it and sitepush check prints it: one text for both.
func SitemapFailure(sm sitemap.Sitemap) string {
	if sm.Index != "" {
		return fmt.Sprintf("sitemap %s: %v — the index %s lists it: fix that entry of the index, or the server", sm.URL, sm.Err, sm.Index)
	}
	return fmt.Sprintf("sitemap %s: %v — fix the sitemaps: entry, or the server", sm.URL, sm.Err)
}
