package config

import "fmt"

// Needs says which settings a command reads. A ${VAR} that is not set is an error in a setting
// the command reads, and nothing but a note in one it does not: the setting is then not given,
// as if left empty, and the command goes on without it — a cron job's `sitepush run` does not
// stop on serve's token.
type Needs struct {
	// Tokens is set for what serves HTTP — serve, the Worker — which reads adminToken and
	// metricsToken; the other commands do not.
	Tokens bool
	// Channel is the one channel the command runs; "" or "all" is every channel. The settings
	// of the channels it leaves out are not read.
	Channel string
	// FeedsServed is set where feeds are only served, at /feeds/{id}.xml, and never written to a
	// file (the Worker): a site's feed.url, when not given, is then not the website's
	// {baseUrl}/feed.xml but publicUrl's /feeds/{id}.xml, or "" without publicUrl, for the server
	// to fill in with the origin a request for the feed came to (ServedFeedURLFrom).
	FeedsServed bool
}

// Everything is what serve and the Worker read: every setting.
var Everything = Needs{Tokens: true}

// reads reports whether the command reads the settings of channel ch.
func (n Needs) reads(ch string) bool {
	return n.Channel == "" || n.Channel == "all" || n.Channel == ch
}

// Unread is a ${VAR} that is not set, in a setting the command that loaded the configuration
// does not read: `sitepush check` shows it, as a warning naming what does read it.
type Unread struct {
	// Var is the variable's name.
	Var string
	// Line is the line of the value that names it.
	Line int
	// Scope is "" for a top-level setting, "defaults", or `site "ID"`.
	Scope string
	// Setting is the setting's path in its scope: "adminToken", "bing.apiKey".
	Setting string
	// NeededBy says what reads the setting, and so needs the variable, and what does not.
	NeededBy string

	// site is the index of the site whose setting it is, -1 outside the sites.
	site int
}

// String says what is unset, where, and what needs it, for check's warning.
func (u Unread) String() string {
	where := u.Setting
	if u.Scope != "" {
		where = u.Scope + ": " + u.Setting
	}
	return fmt.Sprintf("%s (line %d): environment variable %s is not set; %s", where, u.Line, u.Var, u.NeededBy)
}

// unreadOf returns the settings left unset for site i of the file (-1: a site created through
// the API), which wrote the keys in own: its own, and those of the defaults it inherits.
func (c *Config) unreadOf(i int, own keySet) map[string]bool {
	var out map[string]bool
	for _, u := range c.Unread {
		if u.site == i && i >= 0 || u.Scope == keyDefaults && !own.has(u.Setting) {
			if out == nil {
				out = map[string]bool{}
			}
			out[u.Setting] = true
		}
	}
	return out
}
