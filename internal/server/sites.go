package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/sites"
)

// siteView is a site as the API shows it: its effective configuration, keys masked, and where
// it comes from.
type siteView struct {
	Site      config.Site `json:"site"`
	Source    string      `json:"source"`
	CreatedAt *time.Time  `json:"createdAt,omitempty"`
	UpdatedAt *time.Time  `json:"updatedAt,omitempty"`
}

func view(e sites.Entry) siteView {
	v := siteView{Site: e.Site.Masked(), Source: e.Source}
	if e.Source == sites.FromAPI {
		v.CreatedAt, v.UpdatedAt = &e.CreatedAt, &e.UpdatedAt
	}
	return v
}

// listSites answers a page of the sites (paging.go): every site while there are at most
// maxPage.
func (s *Server) listSites(w http.ResponseWriter, r *http.Request) {
	all := s.sites.All()
	from, to, next, ok := pageOfSites(w, r, len(all), func(i int) pageKey { return pageKey{all[i].Source, all[i].Site.ID} })
	if !ok {
		return
	}
	out := struct {
		Sites      []siteView `json:"sites"`
		NextCursor string     `json:"nextCursor,omitempty"`
	}{Sites: make([]siteView, 0, to-from), NextCursor: next}
	for _, e := range all[from:to] {
		out.Sites = append(out.Sites, view(e))
	}
	linkNext(w, r, next)
	answer.WriteJSON(w, http.StatusOK, out)
}

func (s *Server) getSite(w http.ResponseWriter, r *http.Request) {
	e, ok := s.sites.Get(r.PathValue("id"))
	if !ok {
		s.noSite(w, r.PathValue("id"))
		return
	}
	answer.WriteJSON(w, http.StatusOK, view(e))
}

func (s *Server) createSite(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	e, err := s.sites.Create(r.Context(), body, s.now())
	if err != nil {
		s.siteError(w, err)
		return
	}
	s.siteChanged()
	w.Header().Set("Location", "/api/sites/"+e.Site.ID)
	answer.WriteJSON(w, http.StatusCreated, view(e))
}

func (s *Server) replaceSite(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	e, err := s.sites.Replace(r.Context(), r.PathValue("id"), body, s.now())
	if err != nil {
		s.siteError(w, err)
		return
	}
	s.siteChanged()
	answer.WriteJSON(w, http.StatusOK, view(e))
}

func (s *Server) deleteSite(w http.ResponseWriter, r *http.Request) {
	if err := s.sites.Delete(r.Context(), r.PathValue("id")); err != nil {
		s.siteError(w, err)
		return
	}
	s.siteChanged()
	w.WriteHeader(http.StatusNoContent)
}

// siteChanged drops the cached answers: they list the sites. The scheduler hears of the change
// from the registry (sites.Registry.OnChange).
func (s *Server) siteChanged() {
	s.cache.invalidate()
}

// siteError answers a failed change with the status its kind calls for.
func (s *Server) siteError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, sites.ErrInvalid):
		answer.WriteError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, sites.ErrExists), errors.Is(err, sites.ErrFileSite), errors.Is(err, sites.ErrChanged):
		answer.WriteError(w, http.StatusConflict, err.Error())
	case errors.Is(err, sites.ErrNotFound):
		answer.WriteError(w, http.StatusNotFound, err.Error())
	default:
		s.logger.Error("changing a site", "err", err)
		answer.WriteError(w, http.StatusServiceUnavailable, "the state could not be written: "+err.Error())
	}
}

// maxBody bounds request bodies: a site's configuration is a few KiB.
const maxBody = 1 << 20

// readBody reads a JSON request body of at most maxBody bytes, or answers why not.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		answer.Errorf(w, http.StatusRequestEntityTooLarge, "the body is larger than %d bytes; a site's configuration is far smaller", maxBody)
		return nil, false
	case err != nil:
		answer.Errorf(w, http.StatusBadRequest, "reading the body: %v", err)
		return nil, false
	case !json.Valid(body):
		answer.WriteError(w, http.StatusBadRequest, `the body must be JSON: a site with the configuration file's keys, like {"id": "example.com", "sitemaps": ["https://example.com/sitemap.xml"]}`)
		return nil, false
	}
	return body, true
}
