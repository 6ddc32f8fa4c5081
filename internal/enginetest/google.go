package enginetest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Google is a strict fake of Google's OAuth token endpoint for service accounts, Search Console
// (sites.get, sitemaps.submit) and URL Inspection. The token endpoint takes only the JWT bearer
// grant, signed RS256 with the key of a registered account (checked with its public key), with
// the account as iss, the token URL as aud, a live exp and the webmasters scope. Search Console
// wants a token and the account's permission on the property (owner or full user to submit),
// and the property and sitemap path-escaped.
type Google struct {
	// URL is the base of everything: the token endpoint is URL/token.
	URL string
	// Inspected answers URL Inspection: its indexStatusResult fields by URL; a URL not in it is
	// "URL is unknown to Google".
	Inspected map[string]map[string]string

	mu       sync.Mutex
	accounts map[string]*googleAccount
	tokens   map[string]string // access token → account
	calls    []GoogleCall
}

type googleAccount struct {
	key         *rsa.PublicKey
	permissions map[string]string
}

// GoogleCall is one call answered: its op (token, sites.get, sitemaps.submit, inspect), status,
// and what it named.
type GoogleCall struct {
	Op, Email, Property, Sitemap, URL string
	Status                            int
}

// NewGoogle starts a fake Google, closed when the test ends.
func NewGoogle(t testing.TB) *Google {
	g := &Google{accounts: map[string]*googleAccount{}, tokens: map[string]string{}, Inspected: map[string]map[string]string{}}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// Account registers a service account with a new RSA key and its permission on each property
// (siteOwner, siteFullUser, siteRestrictedUser), and writes its JSON key file in a temporary
// directory, whose path it returns.
func (g *Google) Account(t testing.TB, email string, permissions map[string]string) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.accounts[email] = &googleAccount{key: &k.PublicKey, permissions: permissions}
	g.mu.Unlock()
	file, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "fake", "private_key_id": "k1",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "client_email": email,
		"token_uri": g.URL + "/token"})
	path := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Calls returns the calls answered so far, of op when op is not "".
func (g *Google) Calls(op string) []GoogleCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []GoogleCall
	for _, c := range g.calls {
		if op == "" || c.Op == op {
			out = append(out, c)
		}
	}
	return out
}

func (g *Google) log(c GoogleCall) {
	g.mu.Lock()
	g.calls = append(g.calls, c)
	g.mu.Unlock()
}

// ServeHTTP answers as Google does.
func (g *Google) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	seg := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	for i, s := range seg {
		seg[i], _ = url.PathUnescape(s)
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/token":
		g.token(w, r)
	case r.Method == http.MethodGet && len(seg) == 4 && strings.Join(seg[:3], "/") == "webmasters/v3/sites":
		g.site(w, r, seg[3])
	case r.Method == http.MethodPut && len(seg) == 6 && strings.Join(seg[:3], "/") == "webmasters/v3/sites" && seg[4] == "sitemaps":
		g.sitemap(w, r, seg[3], seg[5])
	case r.Method == http.MethodPost && r.URL.Path == "/v1/urlInspection/index:inspect":
		g.inspect(w, r)
	default:
		googleError(w, http.StatusNotFound, "not found (are the property and the sitemap URL path-escaped?)")
	}
}

func googleError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg}})
}

// token takes the JWT bearer grant.
func (g *Google) token(w http.ResponseWriter, r *http.Request) {
	c := GoogleCall{Op: "token", Status: http.StatusBadRequest}
	defer func() { g.log(c) }()
	refuse := func(msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant", "error_description": msg})
	}
	if r.FormValue("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		refuse("Invalid grant_type")
		return
	}
	parts := strings.Split(r.FormValue("assertion"), ".")
	if len(parts) != 3 {
		refuse("Invalid JWT: not three parts")
		return
	}
	var header struct{ Alg string }
	var claims struct {
		Iss, Aud, Scope string
		Exp             int64
	}
	hb, herr := base64.RawURLEncoding.DecodeString(parts[0])
	cb, cerr := base64.RawURLEncoding.DecodeString(parts[1])
	sig, serr := base64.RawURLEncoding.DecodeString(parts[2])
	if herr != nil || cerr != nil || serr != nil || json.Unmarshal(hb, &header) != nil || json.Unmarshal(cb, &claims) != nil {
		refuse("Invalid JWT: undecodable")
		return
	}
	c.Email = claims.Iss
	g.mu.Lock()
	acct := g.accounts[claims.Iss]
	g.mu.Unlock()
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	now := time.Now().Unix()
	switch {
	case acct == nil:
		refuse("Invalid grant: account not found")
	case claims.Aud != "http://"+r.Host+"/token":
		refuse("Invalid JWT: aud must be the token URL")
	case claims.Exp < now-60 || claims.Exp > now+3700:
		refuse("Invalid JWT: Token must be a short-lived token (60 minutes)")
	case header.Alg != "RS256" || rsa.VerifyPKCS1v15(acct.key, crypto.SHA256, sum[:], sig) != nil:
		refuse("Invalid JWT Signature.")
	case !strings.Contains(" "+claims.Scope+" ", " https://www.googleapis.com/auth/webmasters "):
		refuse("Invalid OAuth scope")
	default:
		tok := fmt.Sprintf("ya29.fake-%d", now+int64(len(g.Calls("token"))))
		g.mu.Lock()
		g.tokens[tok] = claims.Iss
		g.mu.Unlock()
		c.Status = http.StatusOK
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	}
}

// account returns the account of the request's token and its permission on property, or answers
// 401.
func (g *Google) account(w http.ResponseWriter, r *http.Request, property string) (string, string, bool) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	g.mu.Lock()
	defer g.mu.Unlock()
	email := g.tokens[tok]
	if !ok || email == "" {
		googleError(w, http.StatusUnauthorized, "Request had invalid authentication credentials.")
		return "", "", false
	}
	return email, g.accounts[email].permissions[property], true
}

func (g *Google) site(w http.ResponseWriter, r *http.Request, property string) {
	c := GoogleCall{Op: "sites.get", Property: property, Status: http.StatusUnauthorized}
	defer func() { g.log(c) }()
	email, perm, ok := g.account(w, r, property)
	if !ok {
		return
	}
	c.Email, c.Status = email, http.StatusForbidden
	if perm == "" {
		googleError(w, http.StatusForbidden, fmt.Sprintf("User does not have sufficient permission for site '%s'.", property))
		return
	}
	c.Status = http.StatusOK
	json.NewEncoder(w).Encode(map[string]string{"siteUrl": property, "permissionLevel": perm})
}

func (g *Google) sitemap(w http.ResponseWriter, r *http.Request, property, sitemap string) {
	c := GoogleCall{Op: "sitemaps.submit", Property: property, Sitemap: sitemap, Status: http.StatusUnauthorized}
	defer func() { g.log(c) }()
	email, perm, ok := g.account(w, r, property)
	if !ok {
		return
	}
	c.Email, c.Status = email, http.StatusForbidden
	if perm != "siteOwner" && perm != "siteFullUser" {
		googleError(w, http.StatusForbidden, fmt.Sprintf("User does not have sufficient permission for site '%s'.", property))
		return
	}
	c.Status = http.StatusNoContent
	w.WriteHeader(http.StatusNoContent)
}

func (g *Google) inspect(w http.ResponseWriter, r *http.Request) {
	var body struct{ InspectionURL, SiteURL string }
	c := GoogleCall{Op: "inspect", Status: http.StatusBadRequest}
	defer func() { g.log(c) }()
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.InspectionURL == "" || body.SiteURL == "" {
		googleError(w, http.StatusBadRequest, "inspectionUrl and siteUrl are required.")
		return
	}
	c.URL, c.Property, c.Status = body.InspectionURL, body.SiteURL, http.StatusUnauthorized
	email, perm, ok := g.account(w, r, body.SiteURL)
	if !ok {
		return
	}
	c.Email, c.Status = email, http.StatusForbidden
	if perm == "" {
		googleError(w, http.StatusForbidden, "You do not own this site, or the inspected URL is not part of this property.")
		return
	}
	g.mu.Lock()
	res, found := g.Inspected[body.InspectionURL]
	g.mu.Unlock()
	if !found {
		res = map[string]string{"verdict": "NEUTRAL", "coverageState": "URL is unknown to Google", "indexingState": "INDEXING_STATE_UNSPECIFIED"}
	}
	c.Status = http.StatusOK
	json.NewEncoder(w).Encode(map[string]any{"inspectionResult": map[string]any{"indexStatusResult": res}})
}
