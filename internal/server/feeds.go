package server

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/sitepush/sitepush/internal/channel/feed"
	"github.com/sitepush/sitepush/internal/sites"
)

// renderedFeed is a feed ready to serve, with its validators.
type renderedFeed struct {
	body    []byte
	etag    string
	changed time.Time
}

// feed serves /feeds/{id}.xml with ETag and Last-Modified, answering 304 to a reader that has it.
func (s *Server) feed(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutSuffix(r.PathValue("file"), ".xml")
	if !ok {
		errorf(w, http.StatusNotFound, "no feed at %s: feeds are at /feeds/{site id}.xml", r.URL.Path)
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
		ctx, cancel := detached(r)
		defer cancel()
		items, err := s.state.FeedItems(ctx, id, site.Feed.MaxItems)
		if err != nil {
			return nil, err
		}
		_, changed, err := s.state.FeedState(ctx, id)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 && !site.Feed.Enabled {
			return nil, nil
		}
		var buf bytes.Buffer
		if err := feed.Render(&buf, site, items, changed, feed.Generator()); err != nil {
			return nil, err
		}
		if configured.After(changed) {
			changed = configured
		}
		return &renderedFeed{body: buf.Bytes(), etag: fmt.Sprintf(`"%016x"`, xxhash.Sum64(buf.Bytes())), changed: changed}, nil
	})
	if err != nil {
		s.answer(w, nil, err)
		return
	}
	f, _ := v.(*renderedFeed)
	if f == nil {
		errorf(w, http.StatusNotFound, "site %q has no feed: set feed.enabled: true in its configuration", id)
		return
	}
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	w.Header().Set("ETag", f.etag)
	w.Header().Set("Cache-Control", "public, max-age=60")
	http.ServeContent(w, r, "", f.changed, bytes.NewReader(f.body))
}
