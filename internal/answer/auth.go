package answer

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// Bearer returns the bearer token of a request; present is false when it sends none. Another
// scheme — the Basic credentials a reverse proxy asks of browsers and passes on — is no try at
// the admin token.
func Bearer(r *http.Request) (token string, present bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// TokenIs compares in constant time: the hashes have one length whatever was sent.
func TokenIs(given, token string) bool {
	a, b := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}
