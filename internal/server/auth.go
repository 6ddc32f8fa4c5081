package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
)

// sessionCookie holds the dashboard's session: an expiry signed with a key derived from the
// admin token, so that changing the token ends every session.
const (
	sessionCookie = "sitepush_session"
	sessionTTL    = 12 * time.Hour
)

// verdict is what a request's credentials are worth.
type verdict struct {
	ok bool
	// wait is set for a client refused for its wrong tokens: how long until it may try again.
	wait time.Duration
}

// admin lets a request through with a valid bearer token, and answers 401 otherwise — 429 to
// an address that sent too many wrong tokens.
func (s *Server) admin(h http.HandlerFunc) http.Handler {
	return s.withBearer("this route needs the header Authorization: Bearer ADMIN_TOKEN (adminToken in the configuration)", h, s.token)
}

// withBearer lets a request through with one of tokens as its bearer token; hint is the 401's
// message.
func (s *Server) withBearer(hint string, h http.Handler, tokens ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		given, present := answer.Bearer(r)
		v := s.attempt(r, given, present, tokens...)
		switch {
		case v.ok:
			h.ServeHTTP(w, r)
		case v.wait > 0:
			s.tooManyGuesses(w, r, v.wait)
		default:
			w.Header().Set("WWW-Authenticate", `Bearer realm="sitepush"`)
			answer.WriteError(w, http.StatusUnauthorized, hint)
		}
	})
}

// tooManyGuesses answers 429 to a client refused for its wrong tokens.
func (s *Server) tooManyGuesses(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
	answer.Errorf(w, http.StatusTooManyRequests, "too many wrong tokens from %s: try again in %d s", clientOf(r).Addr(), retryAfterSeconds(wait))
}

// retryAfterSeconds rounds a wait up to whole seconds, as Retry-After counts.
func retryAfterSeconds(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }

// attempt judges the token a request gives (present: it gives one) against tokens. A client
// refused for its wrong tokens is refused whatever it gives, and its attempt is not judged; a
// wrong token counts against its address.
func (s *Server) attempt(r *http.Request, given string, present bool, tokens ...string) verdict {
	client := clientOf(r)
	if !present {
		return verdict{wait: s.guesses.refused(client, s.now())}
	}
	ok, wait, penalty := s.guesses.attempt(client, s.now(), func() bool {
		for _, t := range tokens {
			if t != "" && answer.TokenIs(given, t) {
				return true
			}
		}
		return false
	})
	if penalty > 0 {
		s.logger.Warn("too many wrong admin tokens: the address is refused for a while", "client", client.Addr().String(),
			"refused_for", penalty.String(), "path", r.URL.Path)
	}
	return verdict{ok: ok, wait: wait}
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
