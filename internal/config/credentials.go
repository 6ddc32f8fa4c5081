package config

import "fmt"

// Credential is a secret that a block of the settings needs once it is on — a channel's key, or
// Google's — and where the block sends it. The loader requires it, warns of it when its block is
// off, and masks it; the API (internal/sites) keeps it home. Its keys come from the struct tags.
type Credential struct {
	// Block is the key of its block, "bing"; Key the secret's key in it, "apiKey"; Dest the key,
	// in the block too, of where the secret is sent, "endpoint".
	Block, Key, Dest string
	// Name names what a destination would receive, for messages: "the Bing API key".
	Name string
	// File is set when the setting is the path of a file of the server's that holds the secret:
	// the path is shown, not masked, and no request can give the file's content.
	File bool

	// at and enabledAt are the key paths of the secret and of its block's enabled setting.
	at, enabledAt string

	value   func(*Settings) *string
	dests   func(*Settings) []string
	enabled func(*Settings) *bool
	// onlyWhenOn is set when the secret is read only while its block is on.
	onlyWhenOn bool
	// engine and noun are the words of the warning of a credential set while its block is off:
	// "nothing goes to Bing", "(or remove the key)".
	engine, noun string
	// why, when set, follows the message that the credential is required.
	why string
}

// newCredential derives a credential's keys from the settings it points at.
func newCredential(c Credential) Credential {
	c.Block = blockOf(func(s *Settings) any { return c.value(s) })
	c.at = settingKey(func(s *Settings) any { return c.value(s) })
	c.Key = leaf(c.at)
	c.enabledAt = settingKey(func(s *Settings) any { return c.enabled(s) })
	return c
}

// dest names the key, in the block, of a destination field.
func dest(at func(*Settings) any) string { return leaf(settingKey(at)) }

// leaf is the last key of a key path: "apiKey" of "bing.apiKey".
func leaf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[i+1:]
		}
	}
	return path
}

var (
	indexNowKey = newCredential(Credential{
		Dest:    dest(func(s *Settings) any { return &s.IndexNow.Endpoints }),
		Name:    "the IndexNow key",
		value:   func(s *Settings) *string { return &s.IndexNow.Key },
		dests:   func(s *Settings) []string { return s.IndexNow.Endpoints },
		enabled: func(s *Settings) *bool { return &s.IndexNow.Enabled },
		engine:  "IndexNow",
		noun:    "key",
	})
	bingAPIKey = newCredential(Credential{
		Dest:    dest(func(s *Settings) any { return &s.Bing.Endpoint }),
		Name:    "the Bing API key",
		value:   func(s *Settings) *string { return &s.Bing.APIKey },
		dests:   func(s *Settings) []string { return []string{s.Bing.Endpoint} },
		enabled: func(s *Settings) *bool { return &s.Bing.Enabled },
		engine:  "Bing",
		noun:    "key",
	})
	googleCredentials = newCredential(Credential{
		Dest:       dest(func(s *Settings) any { return &s.Google.Endpoint }),
		Name:       "an access token of the Google credentials",
		File:       true,
		value:      func(s *Settings) *string { return &s.Google.Credentials },
		dests:      func(s *Settings) []string { return []string{s.Google.Endpoint} },
		enabled:    func(s *Settings) *bool { return &s.Google.Enabled },
		onlyWhenOn: true,
		engine:     "Google",
		noun:       "credentials",
		why:        ": the path of the service account's JSON key file",
	})
)

// Credentials are the secrets of a site's settings, in the order the API checks where they go.
var Credentials = []*Credential{&bingAPIKey, &indexNowKey, &googleCredentials}

// Sent returns the secret as the site sends it: "" when it has none, or when its block is off
// and it is read only while on.
func (c *Credential) Sent(s *Settings) string {
	if c.onlyWhenOn && !*c.enabled(s) {
		return ""
	}
	return *c.value(s)
}

// Value returns the secret as the settings hold it, on or off.
func (c *Credential) Value(s *Settings) string { return *c.value(s) }

// Dests returns where the settings send the secret.
func (c *Credential) Dests(s *Settings) []string { return c.dests(s) }

// path is the key path of the secret: "bing.apiKey".
func (c *Credential) path() string { return c.at }

// enabledKey is the key path of its block's enabled setting: "bing.enabled".
func (c *Credential) enabledKey() string { return c.enabledAt }

// require reports the credential missing from a site whose block is on, unless its ${VAR} is
// unset in a setting the command does not read.
func (c *Credential) require(s *Site, p *problems) {
	if *c.enabled(&s.Settings) && *c.value(&s.Settings) == "" && !s.unread[c.path()] {
		p.addf("%s is required when %s is true%s", c.path(), c.enabledKey(), c.why)
	}
}

// offWarning is the warning of a credential set while its block is off, "" when there is none:
// the site turning the block off itself (enabled: false) means it.
func (c *Credential) offWarning(s *Settings, own keySet) string {
	if *c.enabled(s) || *c.value(s) == "" || own.has(c.enabledKey()) {
		return ""
	}
	return fmt.Sprintf("%s is set but %s is not: nothing goes to %s; add %s: true (or remove the %s)",
		c.path(), c.enabledKey(), c.engine, c.enabledKey(), c.noun)
}
