// Package changes tells which pages of a site changed since a channel last delivered them, when
// a sitemap's lastmods cannot say so on their own (SPEC "What changed").
//
// Most published sitemaps give no lastmod at all, or stamp every URL with the time of the
// build that wrote them: trusting such a lastmod sends every page again at every build, and
// ignoring a missing one never sends a changed page again. Lastmods judges one sitemap's
// lastmods as they are read (detect: auto): those that tell pages apart are trusted, and the
// pages of any other sitemap are checked by their content. Dir reads those pages from the built
// site on disk (changes.dir) instead of fetching them, and never reads a file outside it.
package changes
