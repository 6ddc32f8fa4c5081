package config

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// checkState accepts the store forms. It never repeats the value, which may hold a password
// (a postgres:// URL, or a key=value connection string): at most its scheme is shown.
func checkState(state string, p *problems) {
	const forms = "sqlite:PATH (like sqlite:sitepush.db), a PostgreSQL URL (like postgres://user:pass@host/db) or memory (nothing kept between runs)"
	scheme := schemeOf(state)
	switch {
	case state == "memory":
	case state == "":
		p.addf("state is empty; it must be %s", forms)
	case scheme == "":
		p.addf("state has no scheme (its value is not shown: it may hold a password); it must be %s. "+
			"A key=value connection string (host=… password=…) must be written as such a URL", forms)
	case scheme == "sqlite" && state == "sqlite:":
		p.addf("state sqlite: needs a file path, like sqlite:sitepush.db")
	case scheme == "sqlite":
	case scheme == "postgres" || scheme == "postgresql":
		if _, err := url.Parse(state); err != nil || !strings.HasPrefix(state, scheme+"://") {
			p.addf("state is not a valid PostgreSQL URL; write postgres://user:pass@host/db, " +
				"percent-encoding @ : / in the password as %%40 %%3A %%2F")
		}
	default:
		p.addf("state must be %s; got a value with the scheme %q (the rest is not shown: it may hold a password)",
			forms, scheme+":")
	}
}

// checkPublicURL wants an http(s) origin, or a path under one where a proxy serves sitepush.
func checkPublicURL(public string, p *problems) {
	if public != "" && (httpURL(public) == nil || strings.ContainsAny(public, "?#")) {
		p.addf("publicUrl %q must be an absolute http(s) URL without a query, like https://push.example.com: where readers reach sitepush serve", public)
	}
}

// ServedFeedURL is where `sitepush serve` serves a site's feed: /feeds/{id}.xml under publicUrl,
// else under listen (which may be reachable only from the machine itself).
func (c *Config) ServedFeedURL(id string) string {
	base := strings.TrimSuffix(c.PublicURL, "/")
	if base == "" {
		host, port, _ := net.SplitHostPort(c.Listen)
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "localhost"
		}
		base = "http://" + net.JoinHostPort(host, port)
	}
	return base + "/feeds/" + id + ".xml"
}

// ServedFeedURLFrom is the site's feed.url, or, when it has none (a served feed without
// publicUrl, Needs.FeedsServed), /feeds/{id}.xml at the origin a request came to: scheme and host.
func (s *Site) ServedFeedURLFrom(scheme, host string) string {
	if s.Feed.URL != "" {
		return s.Feed.URL
	}
	return scheme + "://" + host + "/feeds/" + s.ID + ".xml"
}

// checkListen wants a numeric port: strconv.Atoi would take "+80".
func checkListen(listen string, p *problems) {
	_, port, err := net.SplitHostPort(listen)
	if _, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil {
		p.addf("listen %q must be host:port with a port from 0 to 65535, like 127.0.0.1:8080 or :8080", listen)
	}
}

func checkUserAgent(ua string, p *problems) {
	switch {
	case strings.TrimSpace(ua) == "":
		p.addf("userAgent is empty; remove the key to send the default (sitepush/VERSION …)")
	case strings.ContainsFunc(ua, func(r rune) bool { return r < ' ' || r == 0x7f }):
		p.addf("userAgent %q must be one line without control characters", ua)
	}
}

// checkWebhook does not echo the URL: webhook URLs often carry a token. The rate is checked as
// "not within [0, 1]" so that NaN, which fails every comparison, is refused too.
func checkWebhook(w *Webhook, p *problems) {
	if w == nil {
		return
	}
	switch {
	case w.URL == "":
		p.addf("webhook.url is required when webhook is given")
	case httpURL(w.URL) == nil:
		p.addf("webhook.url must be an absolute http(s) URL, like https://hooks.example.com/x")
	}
	if r := w.FailureRate; !(r >= 0 && r <= 1) {
		p.addf("webhook.failureRate must be between 0 and 1, got %s", strconv.FormatFloat(r, 'g', -1, 64))
	}
}

// maxConcurrency bounds serve.concurrency: a value above it is a typo more likely than a plan, and
// so many runs at once would only wait on each other for the state's connections, the machine's
// CPU and the engines.
const maxConcurrency = 1000

func checkServe(s Serve, p *problems) {
	if s.Concurrency < 1 || s.Concurrency > maxConcurrency {
		p.addf("serve.concurrency must be between 1 and %d (the scheduled runs that go at once), got %d; "+
			"remove the key for the default %d", maxConcurrency, s.Concurrency, defaultConcurrency)
	}
}
