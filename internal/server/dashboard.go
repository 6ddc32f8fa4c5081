package server

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/version"
)

//go:embed templates
var templates embed.FS

// dashboardPages are parsed when first shown, not when sitepush starts: most commands never show
// them. Each page is a file of templates/ that uses layout.html's "top" and "bottom".
var dashboardPages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(templateFuncs()).ParseFS(templates, "templates/*.html"))
})

// page is what every dashboard page gets: its own data in Data, and what the layout shows.
type page struct {
	Title string
	// Login shows the login form (with Error) instead of a page.
	Login bool
	Error string
	// Flash is the result of the action the browser just took.
	Flash string
	// CSRF is the session's token, for the forms that act.
	CSRF    string
	Version string
	Now     time.Time
	// Refresh, when set, reloads the page every so many seconds (a run going).
	Refresh int
	Data    any
}

// loginPage shows the login form: 429 with the wait to a client refused for its wrong tokens,
// else 401 with msg.
func (s *Server) loginPage(w http.ResponseWriter, v verdict, msg string) {
	if v.wait > 0 {
		secs := retryAfterSeconds(v.wait)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.render(w, nil, http.StatusTooManyRequests, "login.html", page{Title: "Sign in", Login: true,
			Error: "Too many wrong tokens were sent from your address: try again in " + strconv.Itoa(secs) + " s."})
		return
	}
	s.render(w, nil, http.StatusUnauthorized, "login.html", page{Title: "Sign in", Login: true, Error: msg})
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
		s.render(w, nil, http.StatusForbidden, "login.html", page{Title: "Refused", Login: true,
			Error: "This form was sent from another site, and was refused: sign in from sitepush's own page."})
		return false
	}
	return true
}

// render writes the dashboard page name with p; r, when given, gives the session's csrf token.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.Version, p.Now = version.Version(), s.now().UTC()
	if r != nil {
		p.CSRF = s.csrfToken(r)
	}
	var buf bytes.Buffer
	if err := dashboardPages().ExecuteTemplate(&buf, name, p); err != nil {
		s.logger.Error("rendering the dashboard", "page", name, "err", err)
		answer.WriteError(w, http.StatusInternalServerError, "rendering the dashboard: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
