package server

import (
	"crypto/hmac"
	"net/http"

	"github.com/sitepush/sitepush/internal/answer"
)

// The dashboard's forms that act (run now, retry failed, resubmit a URL) carry a token tied to
// the browser's session in a hidden input named csrf: a page of another site cannot read it, so
// it cannot make the browser send a form that acts. The session cookie is SameSite=Strict and
// the Origin is checked too (sameOrigin); a form without the token, or with another session's,
// is refused with 403.

// csrfToken returns the token of the request's session; "" without a session cookie.
func (s *Server) csrfToken(r *http.Request) string {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return ""
	}
	return s.sign("csrf\x00" + c.Value)
}

// withForm lets through a POST of the dashboard's own page: one with a session, sent from this
// server's origin, with the session's csrf token. Others are refused: 401 with the login form
// without a session, 403 else.
func (s *Server) withForm(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.hasSession(r) {
			s.loginPage(w, verdict{}, "Sign in first: your session ended.")
			return
		}
		if !s.sameOrigin(w, r) {
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
		want := s.csrfToken(r)
		if got := r.PostFormValue("csrf"); got == "" || !hmac.Equal([]byte(got), []byte(want)) {
			s.logger.Warn("a dashboard form without its csrf token was refused", "path", r.URL.Path, "client", clientOf(r).Addr().String())
			s.render(w, r, http.StatusForbidden, "login.html", page{Title: "Refused", Login: true,
				Error: "This form was refused: it did not carry this session's token. Reload the page and press the button again."})
			return
		}
		h(w, r)
	}
}

// withSession shows a dashboard page to a browser with a session (or a client with the bearer
// token), and the login form to others.
func (s *Server) withSession(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.hasSession(r) {
			given, present := answer.Bearer(r)
			if v := s.attempt(r, given, present, s.token); !v.ok {
				s.loginPage(w, v, "")
				return
			}
		}
		h(w, r)
	}
}
