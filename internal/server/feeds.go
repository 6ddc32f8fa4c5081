package server

import (
	"net/http"
	"strings"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/sites"
)

// feed serves /feeds/{id}.xml with ETag and Last-Modified, answering 304 to a reader that has it.
func (s *Server) feed(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutSuffix(r.PathValue("file"), ".xml")
	if !ok {
		answer.Errorf(w, http.StatusNotFound, "no feed at %s: feeds are at /feeds/{site id}.xml", r.URL.Path)
		return
	}
	e, ok := s.sites.Get(id)
	if !ok {
		s.noSite(w, id)
		return
	}
	site, id := e.Site, e.Site.ID
	// A feed changes with its items, and with its site's configuration (title, maxItems).
	configured := e.UpdatedAt
	if e.Source != sites.FromAPI {
		configured = s.started
	}
	v, err := s.cache.get("feed:"+id, func() (any, error) {
		ctx, cancel := answer.Detached(r)
		defer cancel()
		return answer.RenderFeed(ctx, s.state, site, configured)
	})
	if err != nil {
		s.answer(w, nil, err)
		return
	}
	f, _ := v.(*answer.Feed)
	if f == nil {
		answer.Errorf(w, http.StatusNotFound, "site %q has no feed: set feed.enabled: true in its configuration", id)
		return
	}
	f.Serve(w, r)
}
