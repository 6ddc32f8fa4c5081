package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// sessionCookie holds the dashboard's session: an expiry signed with a key derived from the
// admin token, so that changing the token ends every session.
const (
	sessionCookie = "sitepush_session"
	sessionTTL    = 12 * time.Hour
)

// admin lets a request through with a valid bearer token, and answers 401 otherwise.
func (s *Server) admin(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.bearer(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sitepush"`)
			writeError(w, http.StatusUnauthorized, "this route needs the header Authorization: Bearer ADMIN_TOKEN (adminToken in the configuration)")
			return
		}
		h(w, r)
	})
}

// bearer reports whether the request carries the admin token, comparing in constant time: the
// hashes have one length whatever was sent.
func (s *Server) bearer(r *http.Request) bool {
	scheme, given, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && s.tokenIs(strings.TrimSpace(given))
}

func (s *Server) tokenIs(given string) bool {
	a, b := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(s.token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// session returns a signed session value that expires at exp.
func (s *Server) session(exp time.Time) string {
	v := strconv.FormatInt(exp.Unix(), 10)
	return v + "." + s.sign(v)
}

func (s *Server) sign(v string) string {
	key := sha256.Sum256([]byte("sitepush dashboard session\x00" + s.token))
	mac := hmac.New(sha256.New, key[:])
	mac.Write([]byte(v))
	return hex.EncodeToString(mac.Sum(nil))
}

// hasSession reports whether the request carries a valid, unexpired session cookie.
func (s *Server) hasSession(r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return false
	}
	v, sig, ok := strings.Cut(c.Value, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(s.sign(v))) {
		return false
	}
	exp, err := strconv.ParseInt(v, 10, 64)
	return err == nil && s.now().Unix() < exp
}

func (s *Server) setSession(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	// Behind a reverse proxy that ends TLS, the proxy says the browser came over HTTPS.
	secure := r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: secure, SameSite: http.SameSiteStrictMode})
}
