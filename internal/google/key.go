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
	"io"
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

// maxKeyFile bounds what is read of a key file: a service account's key is about 2.4 KB.
const maxKeyFile = 64 << 10

// loadKey reads the service account's key file at path into the JWT bearer grant's
// configuration: the token request is signed with its key by golang.org/x/oauth2/jwt and sent
// to its token_uri, as given, and nowhere else (the JWT names that token_uri as its audience, so
// no other token endpoint could use it). Errors name the file, never its content.
func loadKey(path string) (*jwt.Config, error) {
	data, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	var k key
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, fmt.Errorf("the Google credentials %s is not JSON; download the service account's key as JSON in Google Cloud (IAM → Service accounts → Keys)", path)
	}
	switch {
	case k.Type != "service_account":
		// Not its type: the file may be any JSON of the server's, whose words are not to be shown.
		return nil, fmt.Errorf("the Google credentials %s is not a service account's key (its \"type\" is not \"service_account\"); "+
			"download the service account's key as JSON in Google Cloud (IAM → Service accounts → Keys)", path)
	case k.ClientEmail == "" || k.TokenURI == "":
		return nil, fmt.Errorf("the Google credentials %s lacks client_email or token_uri; download the service account's key again", path)
	case pemBlock(k.PrivateKey) == nil:
		return nil, fmt.Errorf("the Google credentials %s has no PEM private_key; download the service account's key again", path)
	}
	return &jwt.Config{Email: k.ClientEmail, PrivateKey: []byte(k.PrivateKey), PrivateKeyID: k.PrivateKeyID,
		Scopes: []string{Scope}, TokenURL: k.TokenURI}, nil
}

// readKeyFile reads the key file at path: a regular file (a device or a pipe could be read
// forever, or block), of at most maxKeyFile bytes.
func readKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the Google credentials: %w; google.credentials must be the path of the service account's JSON key file", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the Google credentials %s is not a regular file; google.credentials must be the path of the service account's JSON key file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("the Google credentials: %w", err)
	case len(data) > maxKeyFile:
		return nil, fmt.Errorf("the Google credentials %s is over %d KiB, which no service account's key is; google.credentials must be the path of the service account's JSON key file", path, maxKeyFile>>10)
	}
	return data, nil
}

func pemBlock(s string) *pem.Block {
	b, _ := pem.Decode([]byte(s))
	return b
}
