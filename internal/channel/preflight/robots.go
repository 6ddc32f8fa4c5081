package preflight

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// robotsFile is a site's robots.txt as one fetch found it.
type robotsFile struct {
	shared
	rules robots
}

// maxRobotsRedirects is how many redirects a robots.txt fetch follows: RFC 9309 asks for at
// least five, and Google follows five.
const maxRobotsRedirects = 5

// errOffSite is a robots.txt redirect that leaves the site: not followed.
var errOffSite = errors.New("robots.txt redirects off the site")

// robotsClient returns client following a robots.txt's redirects only within the site: to the
// same host and port, or from http to https on the same host (ownSite). A redirect elsewhere is
// not followed — the site's robots.txt could otherwise have the run fetch any address, an
// internal one among them, and another host's rules decide for the site — and the robots.txt
// is then taken as missing, as Google takes a robots.txt whose redirects it cannot follow: every
// page is allowed, its own answer decides.
func robotsClient(client *http.Client) *http.Client {
	c := *client
	inner := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		switch {
		case !ownSite(via[0].URL, req.URL):
			return errOffSite
		case len(via) >= maxRobotsRedirects:
			return fmt.Errorf("robots.txt stopped after %d redirects", maxRobotsRedirects)
		case inner != nil:
			return inner(req, via)
		}
		return nil
	}
	return &c
}

// ownSite reports whether to is on the site of from: the same host (in any case) and the same
// scheme and port, or from http to https (on the default port, or on from's).
func ownSite(from, to *url.URL) bool {
	if !strings.EqualFold(from.Hostname(), to.Hostname()) {
		return false
	}
	fromScheme, toScheme := strings.ToLower(from.Scheme), strings.ToLower(to.Scheme)
	switch {
	case fromScheme == toScheme:
		return portOf(from) == portOf(to)
	case fromScheme == "http" && toScheme == "https":
		return portOf(to) == "443" || portOf(to) == portOf(from)
	}
	return false
}

// portOf returns u's port, its scheme's default when it names none.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// robotsOf returns the robots.txt of u's origin, fetching it once in the run; nil when ctx ended
// first. A robots.txt that is missing (4xx), fails, cannot be reached or redirects off the site
// (robotsClient) allows every page: the page's own answer decides.
func (c *Checker) robotsOf(ctx context.Context, u string) *robotsFile {
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return &robotsFile{shared: shared{ok: true}}
	}
	origin := pu.Scheme + "://" + pu.Host
	return fetchOnce(ctx, &c.mu, c.robots, origin, func(rf *robotsFile) { c.fetchRobots(ctx, origin+"/robots.txt", rf) })
}

// fetchRobots reads a robots.txt (at most maxBody) into rf.
func (c *Checker) fetchRobots(ctx context.Context, u string, rf *robotsFile) {
	defer close(rf.done)
	req, end, ok, err := c.begin(ctx, u)
	if !ok {
		return
	}
	defer end()
	if err != nil {
		rf.ok = true
		return
	}
	resp, err := c.robotsCl.Do(req)
	if err != nil {
		rf.ok = ctx.Err() == nil && !c.refused(err)
		return
	}
	defer resp.Body.Close()
	rf.ok = true
	if resp.StatusCode/100 != 2 {
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil && ctx.Err() != nil {
		rf.ok = false
		return
	}
	rf.rules = parseRobots(body)
}

// robots are the groups of a robots.txt.
type robots struct {
	groups []robotsGroup
}

// robotsGroup is the rules a robots.txt gives some crawlers.
type robotsGroup struct {
	agents []string // lower case
	rules  []robotsRule
}

// robotsRule is one Allow or Disallow line.
type robotsRule struct {
	allow   bool
	pattern string
}

// parseRobots reads the groups of a robots.txt (RFC 9309): user-agent lines in a row open a
// group, and the allow and disallow lines after them are its rules. Other lines are ignored.
func parseRobots(text []byte) robots {
	var r robots
	var g *robotsGroup
	inAgents := false
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), maxBody)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		key, value, found := strings.Cut(line, ":")
		if !found {
			continue
		}
		key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
		switch key {
		case "user-agent":
			if !inAgents {
				r.groups = append(r.groups, robotsGroup{})
				g = &r.groups[len(r.groups)-1]
				inAgents = true
			}
			g.agents = append(g.agents, strings.ToLower(value))
		case "allow", "disallow":
			inAgents = false
			if g != nil && value != "" {
				g.rules = append(g.rules, robotsRule{allow: key == "allow", pattern: value})
			}
		}
	}
	return r
}

// allowed reports whether agent may crawl path (with its query): the rules of the groups that
// name agent, else of those for "*", the longest matching pattern deciding, an allow winning a
// tie. rule is the deciding line, when it disallows.
func (r robots) allowed(agent, path string) (rule string, ok bool) {
	agent = strings.ToLower(agent)
	rules := r.rulesFor(agent)
	if rules == nil && agent != "*" {
		rules = r.rulesFor("*")
	}
	best, allow := -1, true
	for _, ru := range rules {
		if !matches(ru.pattern, path) {
			continue
		}
		if n := len(ru.pattern); n > best || (n == best && ru.allow) {
			best, allow = n, ru.allow
			if !allow {
				rule = "Disallow: " + ru.pattern + " for " + agent
			}
		}
	}
	return rule, allow
}

// rulesFor returns the rules of every group naming agent; nil when none does.
func (r robots) rulesFor(agent string) []robotsRule {
	var out []robotsRule
	named := false
	for _, g := range r.groups {
		for _, a := range g.agents {
			if a == agent {
				named = true
				out = append(out, g.rules...)
				break
			}
		}
	}
	if named && out == nil {
		out = []robotsRule{}
	}
	return out
}

// matches reports whether a robots.txt pattern matches path: "*" matches any characters, a final
// "$" the end.
func matches(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	rest := path[len(parts[0]):]
	last := len(parts) - 1
	if anchored && last == 0 {
		return rest == ""
	}
	for i, p := range parts[1:] {
		if anchored && i+1 == last {
			// The last piece must end the path; the earlier ones, found leftmost, leave it the most room.
			return strings.HasSuffix(rest, p)
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return true
}

// pathOf is the part of u robots.txt rules match: its path and query.
func pathOf(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return "/"
	}
	p := pu.EscapedPath()
	if p == "" {
		p = "/"
	}
	if pu.RawQuery != "" {
		p += "?" + pu.RawQuery
	}
	return p
}
