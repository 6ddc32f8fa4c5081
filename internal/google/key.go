// Package google follows a site's runs up through the two APIs Google supports for this, with a
// service account: Search Console's sitemaps (a sitemap a run found new or changed is submitted:
// the replacement of the retired sitemap ping) and URL Inspection (each URL sent is inspected once
// after its submission). Google's Indexing API is not used: it is for job postings and live
// streams only. It is a runner.Follower, not a channel: it delivers no queue of due URLs.
package google

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"

	"golang.org/x/oauth2/jwt"
)

// Scope is the OAuth scope of Search Console that submits sitemaps and inspects URLs.
const Scope = "https://www.googleapis.com/auth/webmasters"

// key is what sitepush reads of a service account's JSON key file.
type key struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
}

// loadKey reads the service account's key file at path into the JWT bearer grant's
// configuration: the token request is signed with its key by golang.org/x/oauth2/jwt and sent
// to its token_uri, as given, and nowhere else. Errors name the file, never its content.
func loadKey(path string) (*jwt.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the Google credentials: %w; google.credentials must be the path of the service account's JSON key file", err)
	}
	var k key
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, fmt.Errorf("the Google credentials %s is not JSON; download the service account's key as JSON in Google Cloud (IAM → Service accounts → Keys)", path)
	}
	switch {
	case k.Type != "service_account":
		return nil, fmt.Errorf("the Google credentials %s is a key of type %q; it must be a service account's key (type service_account)", path, k.Type)
	case k.ClientEmail == "" || k.TokenURI == "":
		return nil, fmt.Errorf("the Google credentials %s lacks client_email or token_uri; download the service account's key again", path)
	case pemBlock(k.PrivateKey) == nil:
		return nil, fmt.Errorf("the Google credentials %s has no PEM private_key; download the service account's key again", path)
	}
	return &jwt.Config{Email: k.ClientEmail, PrivateKey: []byte(k.PrivateKey), PrivateKeyID: k.PrivateKeyID,
		Scopes: []string{Scope}, TokenURL: k.TokenURI}, nil
}

func pemBlock(s string) *pem.Block {
	b, _ := pem.Decode([]byte(s))
	return b
}
