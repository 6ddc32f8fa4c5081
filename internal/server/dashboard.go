package server

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/version"
)

//go:embed templates
var templates embed.FS

var dashboardPage = template.Must(template.New("dashboard.html").Funcs(template.FuncMap{
	"deref": func(p *int) int { return *p },
}).ParseFS(templates, "templates/dashboard.html"))

// dashboardData is what the page shows: the login form, or every site's status.
type dashboardData struct {
	Login    bool
	Error    string
	Version  string
	Now      time.Time
	Channels []string
	Sites    []*siteStatus
}

// dashboard shows every site's status to a browser with a session (or the bearer token), and
// the login form to others.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) {
	if !s.hasSession(r) && !s.bearer(r) {
		s.page(w, http.StatusUnauthorized, dashboardData{Login: true})
		return
	}
	all, err := s.statuses(r)
	if err != nil {
		s.answer(w, nil, err)
		return
	}
	s.page(w, http.StatusOK, dashboardData{Version: version.Version(), Now: s.now().UTC(), Channels: config.Channels, Sites: all})
}

// login checks the token of the form and starts a session.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if !s.tokenIs(r.PostFormValue("token")) {
		s.page(w, http.StatusUnauthorized, dashboardData{Login: true, Error: "That is not the admin token (adminToken in the configuration)."})
		return
	}
	s.setSession(w, r, s.session(s.now().Add(sessionTTL)), int(sessionTTL.Seconds()))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	s.setSession(w, r, "", -1)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) page(w http.ResponseWriter, status int, d dashboardData) {
	var buf bytes.Buffer
	if err := dashboardPage.Execute(&buf, d); err != nil {
		s.logger.Error("rendering the dashboard", "err", err)
		writeError(w, http.StatusInternalServerError, "rendering the dashboard: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
