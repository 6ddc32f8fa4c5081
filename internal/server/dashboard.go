package server

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/api"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/version"
)

//go:embed templates
var templates embed.FS

// dashboardPage is parsed when first shown, not when sitepush starts: most commands never show it.
var dashboardPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("dashboard.html").Funcs(template.FuncMap{
		"deref": func(p *int) int { return *p },
	}).ParseFS(templates, "templates/dashboard.html"))
})

// dashboardData is what the page shows: the login form, or every site's status.
type dashboardData struct {
	Login    bool
	Error    string
	Version  string
	Now      time.Time
	Channels []string
	Sites    []*api.SiteStatus
}

// dashboard shows every site's status to a browser with a session (or the bearer token), and
// the login form to others.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) {
	if !s.hasSession(r) {
		given, present := api.Bearer(r)
		if v := s.attempt(r, given, present, s.token); !v.ok {
			s.loginPage(w, v, "")
			return
		}
	}
	all, err := s.statuses(r)
	if err != nil {
		s.answer(w, nil, err)
		return
	}
	s.page(w, http.StatusOK, dashboardData{Version: version.Version(), Now: s.now().UTC(), Channels: config.Channels, Sites: all})
}

// loginPage shows the login form: 429 with the wait to a client refused for its wrong tokens,
// else 401 with msg.
func (s *Server) loginPage(w http.ResponseWriter, v verdict, msg string) {
	if v.wait > 0 {
		secs := retryAfterSeconds(v.wait)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.page(w, http.StatusTooManyRequests, dashboardData{Login: true,
			Error: fmt.Sprintf("Too many wrong tokens were sent from your address: try again in %d s.", secs)})
		return
	}
	s.page(w, http.StatusUnauthorized, dashboardData{Login: true, Error: msg})
}

// login checks the token of the form and starts a session. The form must come from this
// server's own page: a form another site makes a browser send is refused (403).
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(w, r) {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if v := s.attempt(r, r.PostFormValue("token"), true, s.token); !v.ok {
		s.loginPage(w, v, "That is not the admin token (adminToken in the configuration).")
		return
	}
	s.setSession(w, r, s.session(s.now().Add(sessionTTL)), int(sessionTTL.Seconds()))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout drops the browser's session, when this server's own page asks.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(w, r) {
		return
	}
	s.setSession(w, r, "", -1)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// sameOrigin refuses (403) a form that a page of another site made the browser send: its
// Sec-Fetch-Site or Origin says so. Clients that are not browsers send neither and pass.
func (s *Server) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	if err := s.origins.Check(r); err != nil {
		s.logger.Warn("a form sent from another site was refused", "path", r.URL.Path, "origin", r.Header.Get("Origin"),
			"client", clientOf(r).Addr().String())
		s.page(w, http.StatusForbidden, dashboardData{Login: true,
			Error: "This form was sent from another site, and was refused: sign in from sitepush's own page."})
		return false
	}
	return true
}

func (s *Server) page(w http.ResponseWriter, status int, d dashboardData) {
	var buf bytes.Buffer
	if err := dashboardPage().Execute(&buf, d); err != nil {
		s.logger.Error("rendering the dashboard", "err", err)
		api.WriteError(w, http.StatusInternalServerError, "rendering the dashboard: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
