package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/runner"
)

// Bounds of POST /api/sites/{id}/urls: one IndexNow request's worth of URLs, each as long as the
// engines take, written in JSON with room for its escapes (a quarter more: "\/", "\u0026") and
// what surrounds it, and 64 KiB for the rest of the body.
const (
	maxSubmitURLs = 10_000
	maxSubmitBody = maxSubmitURLs*(runner.MaxURLLength*5/4+16) + 64<<10
)

// submitRequest is the body of POST /api/sites/{id}/urls.
type submitRequest struct {
	URLs    []string `json:"urls"`
	Channel string   `json:"channel"`
	Force   bool     `json:"force"`
}

// refusal is a URL of a submit the site does not take, and why.
type refusal struct {
	URL    string `json:"url"`
	Reason string `json:"reason"`
}

// submitURLs starts a run that sends chosen URLs of a site now: what a CMS's publish hook or a
// deploy script calls (docs/api.md). URLs the site does not take are refused, with the reason,
// and the others go; 202 with the run's id.
func (s *Server) submitURLs(w http.ResponseWriter, r *http.Request) {
	e, ok := s.sites.Get(r.PathValue("id"))
	if !ok {
		s.noSite(w, r.PathValue("id"))
		return
	}
	req, ok := readSubmit(w, r)
	if !ok {
		return
	}
	site := e.Site
	channel, ok := answer.TriggerChannel(w, site, req.Channel)
	if !ok {
		return
	}
	var take []string
	refused := []refusal{}
	for _, u := range req.URLs {
		if why := runner.Refused(site, u); why != "" {
			refused = append(refused, refusal{URL: echo(u), Reason: why})
			continue
		}
		take = append(take, u)
	}
	if len(refused) > 0 {
		s.logger.Warn("submitted URLs refused", "site", site.ID, "refused", len(refused), "of", len(req.URLs), "first", refused[0].URL, "why", refused[0].Reason)
	}
	if len(take) == 0 {
		answer.WriteJSON(w, http.StatusBadRequest, map[string]any{"error": "none of the URLs can be submitted for site " + site.ID + ": see each one's reason", "refused": refused})
		return
	}
	runID, err := s.runs.Submit(site, channel, take, req.Force)
	if s.notStarted(w, site.ID, err) {
		return
	}
	body := answer.Started(runID, site.ID, channel)
	body["urls"], body["refused"] = len(take), refused
	answer.WriteJSON(w, http.StatusAccepted, body)
}

// readSubmit reads the body of a submit — one JSON object, nothing after it — or answers why
// not. It is decoded as it arrives, never held whole.
func readSubmit(w http.ResponseWriter, r *http.Request) (submitRequest, bool) {
	var req submitRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxSubmitBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	if err == nil {
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("something follows the JSON object")
		}
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		answer.Errorf(w, http.StatusRequestEntityTooLarge, "the body is larger than %d bytes: send at most %d URLs at once", maxSubmitBody, maxSubmitURLs)
		return req, false
	case err != nil:
		answer.Errorf(w, http.StatusBadRequest, `the body must be one JSON object like {"urls": ["https://…"], "channel": "all", "force": false}: %v`, err)
		return req, false
	}
	switch {
	case len(req.URLs) == 0:
		answer.Errorf(w, http.StatusBadRequest, `urls is required: {"urls": ["https://…"]}`)
	case len(req.URLs) > maxSubmitURLs:
		answer.Errorf(w, http.StatusBadRequest, "%d URLs: send at most %d at once", len(req.URLs), maxSubmitURLs)
	default:
		return req, true
	}
	return req, false
}
