package config

import (
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// validID keeps ids usable in URL paths (/feeds/{id}.xml, /api/sites/{id}) without escaping: 1
// to 64 letters, digits, ".", "_" and "-", the first a letter or digit.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')) {
			return false
		}
	}
	return true
}

// compiled holds what validation parses once so that the scheduler and the runner need not parse again.
type compiled struct {
	schedule         cron.Schedule
	include, exclude []*regexp.Regexp
	// backlog is the backlog setting's duration for each channel it applies to: -1 for all, 0
	// for none.
	backlog map[string]time.Duration
}

// Cron returns the site's schedule, parsed in UTC, for the scheduler. It is nil before Validate
// (or Load) has run, and when the schedule is invalid.
func (s *Site) Cron() cron.Schedule { return s.compiled.schedule }

// prepare derives, checks and compiles the site, and returns its problems; own holds the keys the
// site wrote itself (nil: every value is its own).
func (s *Site) prepare(own keySet) problems {
	s.derive()
	s.layerBacklog(own)
	p := problems{own: own}
	checkID(s.ID, &p)
	checkSitemaps(s.Sitemaps, &p)
	checkBaseURL(s, &p)
	s.compiled = checkSettings(&s.Settings, &p)
	checkRequired(s, &p)
	s.warnings = s.offChannels(own)
	return p
}

func checkID(id string, p *problems) {
	switch {
	case id == "":
		p.addf("id is required: a short name like example.com, used in URLs (/feeds/{id}.xml)")
	case !validID(id):
		p.addf(`id %q must be 1–64 characters of A–Z, a–z, 0–9, ".", "_" and "-", starting with a letter `+
			"or digit (it appears in URLs)", id)
	}
}

func checkSitemaps(sitemaps []string, p *problems) {
	if len(sitemaps) == 0 {
		p.addf("sitemaps needs at least one sitemap URL or file path, like [https://example.com/sitemap.xml]")
	}
	for i, sm := range sitemaps {
		switch {
		case sm == "":
			p.addf("sitemaps[%d] is empty", i)
		case isFilePath(sm) && looksLikeHost(sm):
			p.addf("sitemaps[%d] %q has no scheme; write https://%s (a local file needs a path like ./%s)", i, sm, sm, sm)
		case isFilePath(sm):
		case strings.HasPrefix(strings.ToLower(sm), "file:"):
			p.addf("sitemaps[%d] %q: file: URLs are not accepted; write the file's path, like /srv/www/sitemap.xml", i, sm)
		case httpURL(sm) == nil:
			p.addf("sitemaps[%d] %q must be an absolute http(s) URL with a host, or a file path", i, sm)
		}
	}
}

// checkBaseURL runs after derive: an empty baseUrl means it could not be derived. A first sitemap
// that looks like a host has its own message, and is no file to speak of here.
func checkBaseURL(s *Site, p *problems) {
	if s.BaseURL == "" {
		if len(s.Sitemaps) > 0 && isFilePath(s.Sitemaps[0]) && !looksLikeHost(s.Sitemaps[0]) {
			p.addf("baseUrl is required: sitemaps[0] has no scheme, so it was taken as the local file %s; "+
				"give the origin of the site's URLs, like baseUrl: https://example.com", s.Sitemaps[0])
		}
		return
	}
	u := httpURL(s.BaseURL)
	switch {
	case u == nil:
		p.addf("baseUrl %q must be an absolute http(s) URL with a host, like https://example.com", s.BaseURL)
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || u.User != nil:
		p.addf("baseUrl %q must be an origin like %s://%s, without a path, query or fragment; "+
			`to limit the submitted paths, use include: ["/blog/**"]`, s.BaseURL, u.Scheme, u.Host)
	}
}

// checkSettings checks the settings a site may inherit, for the defaults or for a site: each scope
// reports the values it wrote, and the rules between fields where it wrote one of them.
func checkSettings(s *Settings, p *problems) compiled {
	var c compiled
	c.schedule = checkSchedule(s.Schedule, p)
	p.positive("runBudget", s.RunBudget)
	if s.ResubmitAfter < 0 {
		p.fieldf("resubmitAfter", "resubmitAfter must be 0 (never) or more, got %s", s.ResubmitAfter)
	}
	if s.PreflightAfter < 0 {
		p.fieldf("preflightAfter", "preflightAfter must be 0 (check an ineligible URL again at every run) or more, got %s", s.PreflightAfter)
	}
	c.backlog = checkBacklogs(s, p)
	c.include = checkGlobs("include", s.Include, p)
	c.exclude = checkGlobs("exclude", s.Exclude, p)
	checkSitemapLimits(&s.Sitemap, p)
	checkChanges(&s.Changes, p)
	for _, ch := range channelSpecs {
		ch.check(s, p)
	}
	checkGoogle(&s.Google, p)
	return c
}

// minEvery is the shortest @every schedule: a five-field cron expression cannot run more often
// either, and a site run every few seconds would hammer the site and the engines.
const minEvery = time.Minute

// checkSchedule parses a five-field cron expression or descriptor, pinned to UTC so that the
// schedule means the same on every machine.
func checkSchedule(spec string, p *problems) cron.Schedule {
	const hint = `use five fields (minute hour day-of-month month day-of-week) like "0 */6 * * *", or a descriptor like @daily`
	trimmed := strings.TrimSpace(spec)
	switch {
	case trimmed == "":
		p.fieldf("schedule", "schedule is required; %s", hint)
		return nil
	case strings.HasPrefix(trimmed, "TZ=") || strings.HasPrefix(trimmed, "CRON_TZ="):
		p.fieldf("schedule", "schedule %q must not set a time zone: schedules are always UTC", spec)
		return nil
	}
	sched, err := cron.ParseStandard("CRON_TZ=UTC " + trimmed)
	if err != nil {
		p.fieldf("schedule", "schedule %q is not a cron expression (%v); %s", spec, err, hint)
		return nil
	}
	// cron turns an @every below one second, negative ones included, into one second.
	if every, ok := sched.(cron.ConstantDelaySchedule); ok && every.Delay < minEvery {
		p.fieldf("schedule", "schedule %q must be at least @every %s", spec, minEvery)
		return nil
	}
	// A date that never comes (30 February) parses, but cron finds no time for it.
	if sched.Next(time.Now()).IsZero() {
		p.fieldf("schedule", "schedule %q never fires (no such date); %s", spec, hint)
		return nil
	}
	return sched
}

func checkSitemapLimits(s *Sitemap, p *problems) {
	p.positive("sitemap.timeout", s.Timeout)
	p.between("sitemap.retries", int64(s.Retries), 0, 10, "")
	p.notNegative("sitemap.retryInterval", s.RetryInterval)
	p.between("sitemap.maxBytes", s.MaxBytes, 1<<10, 2<<30, "1 KiB to 2 GiB")
	p.between("sitemap.maxDepth", int64(s.MaxDepth), 1, 10, "")
}

// checkRequired checks what only a whole site can satisfy, whatever it inherited: the secrets a
// channel needs once it is enabled (but for one whose ${VAR} is unset and that the command does
// not read), and the key file's host, which must be baseUrl's.
func checkRequired(s *Site, p *problems) {
	for _, ch := range channelSpecs {
		if ch.credential != nil {
			ch.credential.require(s, p)
		}
		if ch.require != nil {
			ch.require(s, p)
		}
	}
	googleCredentials.require(s, p)
	if g := &s.Google; g.Enabled && g.Property == "" {
		p.addf("google.property is required when google.enabled is true: the Search Console property, like sc-domain:example.com or https://example.com/")
	}
}

// requireIndexNow checks what IndexNow needs of a whole site: an endpoint once it is on, and a
// key file on baseUrl's host.
func requireIndexNow(s *Site, p *problems) {
	in := &s.IndexNow
	if in.Enabled && len(in.Endpoints) == 0 {
		p.addf("indexnow.endpoints needs at least one endpoint when indexnow.enabled is true, like [https://api.indexnow.org/indexnow]")
	}
	checkKeyLocation(in.KeyLocation, s.BaseURL, p)
}

func checkKeyLocation(loc, baseURL string, p *problems) {
	if loc == "" {
		return
	}
	u, base := httpURL(loc), httpURL(baseURL)
	switch {
	case u == nil:
		p.addf("indexnow.keyLocation %q must be an absolute http(s) URL, like %s/{key}.txt", loc, baseURL)
	case base != nil && !strings.EqualFold(u.Host, base.Host):
		p.addf("indexnow.keyLocation %q must be on baseUrl's host (%s): IndexNow rejects a key file on another host",
			loc, base.Host)
	}
}
