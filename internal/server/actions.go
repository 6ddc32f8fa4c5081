package server

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/scheduler"
)

// The dashboard's actions: POST forms (withForm checks the session, the origin and the csrf
// token) that call what the commands call — Trigger as `sitepush run`, RetryFailed as `sitepush
// run --retry-failed`, Submit as `sitepush submit --force` — and send the browser to the run's
// page, which tells what was done (the flash) and follows the run.

// flashOf is the result an action sent the browser back with, by the code in ?did=: a fixed
// message for each, never text of the query, which anyone can write into a link. A message of a
// run going (started, being run) is shown only while going says one is: the page reloads itself
// with the same link until the run ends, and must not tell of a start once the run has ended.
func flashOf(r *http.Request, going bool) string {
	did := r.URL.Query().Get("did")
	if msg := runFlash(did); msg != "" {
		if !going {
			return ""
		}
		return msg
	}
	switch did {
	case "queued":
		return "The run is queued: every slot of serve.concurrency is taken, and it starts, before the scheduled runs, when one is free."
	case "queued-other":
		return "Another run of the site triggered here is queued, so nothing new was queued: try again when it has started."
	case "stopping":
		return "sitepush is shutting down: it starts no new run."
	}
	return ""
}

// runFlash is the message of an action's code that tells of a run going, "" for another code.
func runFlash(did string) string {
	switch did {
	case "run":
		return "The run started: this page follows it until it ends."
	case "retry":
		return "A run that sends the failed URLs again started: this page follows it until it ends."
	case "submit":
		return "The URL is being sent again: this page follows the run until it ends."
	case "busy":
		return "The site is being run now, so nothing new was started: try again when that run ends."
	}
	return ""
}

// runNow starts a run of the site on the form's channel ("all" or one).
func (s *Server) runNow(w http.ResponseWriter, r *http.Request) {
	s.act(w, r, "run", func(site *config.Site, channel string) (int64, error) { return s.runs.Trigger(site, channel) })
}

// retryFailed starts a run that sends only the site's failed URLs again.
func (s *Server) retryFailed(w http.ResponseWriter, r *http.Request) {
	s.act(w, r, "retry", s.runs.RetryFailed)
}

// resubmit starts a run that sends the form's URL again, delivered and unchanged or not.
func (s *Server) resubmit(w http.ResponseWriter, r *http.Request) {
	s.act(w, r, "submit", func(site *config.Site, channel string) (int64, error) {
		u := r.PostFormValue("url")
		if why := runner.Refused(site, u); why != "" {
			return 0, refusedURL(echo(u) + ": " + why)
		}
		return s.runs.Submit(site, channel, []string{u}, true)
	})
}

// refusedURL is a URL the site does not take, and why: "URL: why".
type refusedURL string

func (e refusedURL) Error() string { return string(e) }

// act reads the site and channel of an action's form, starts the run and sends the browser to
// its page. A site being run, a run queued (every slot taken), or sitepush stopping, sends it back
// to the site's page, which says so; a URL the site does not take, or a first run still to come, is told on a page of its own.
func (s *Server) act(w http.ResponseWriter, r *http.Request, did string, start func(*config.Site, string) (int64, error)) {
	e, ok := s.sites.Get(r.PathValue("id"))
	if !ok {
		s.notFound(w, r, "There is no site "+strconv.Quote(r.PathValue("id"))+".")
		return
	}
	site := e.Site
	channel := r.PostFormValue("channel")
	if channel == "" {
		channel = "all"
	}
	if channel != "all" && (!slices.Contains(config.Channels, channel) || !site.Enabled(channel)) {
		s.render(w, r, http.StatusBadRequest, "message.html", page{Title: "Refused — sitepush",
			Error: "Channel " + strconv.Quote(channel) + " is not enabled for site " + site.ID + "."})
		return
	}
	id, err := start(site, channel)
	back := "/sites/" + url.PathEscape(site.ID) + "?did="
	var refused refusedURL
	switch {
	case errors.Is(err, runner.ErrBusy):
		http.Redirect(w, r, back+"busy", http.StatusSeeOther)
	case errors.Is(err, scheduler.ErrQueued):
		http.Redirect(w, r, back+"queued-other", http.StatusSeeOther)
	case err == nil && id == scheduler.Queued:
		s.cache.invalidate()
		s.logger.Info("a run was queued from the dashboard", "site", site.ID, "action", did, "channel", channel)
		http.Redirect(w, r, back+"queued", http.StatusSeeOther)
	case errors.Is(err, scheduler.ErrStopping):
		http.Redirect(w, r, back+"stopping", http.StatusSeeOther)
	case errors.As(err, &refused):
		s.render(w, r, http.StatusBadRequest, "message.html", page{Title: "Not sent — sitepush",
			Error: "The URL was not sent, as site " + site.ID + " does not take it: " + string(refused) + "."})
	case errors.Is(err, runner.ErrFirstRunPending):
		s.render(w, r, http.StatusConflict, "message.html", page{Title: "Not started — sitepush", Error: "The run did not start: " + err.Error() + "."})
	case err != nil:
		s.failedPage(w, r, err)
	default:
		s.cache.invalidate()
		s.logger.Info("a run was started from the dashboard", "site", site.ID, "action", did, "channel", channel, "run", id)
		http.Redirect(w, r, "/runs/"+strconv.FormatInt(id, 10)+"?did="+did, http.StatusSeeOther)
	}
}
