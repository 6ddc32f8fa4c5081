package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateTopLevel(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"sqlite", "state: sqlite:x.db", ""},
		{"memory", "state: memory", ""},
		{"postgres", "state: postgres://u:p@db.example/sitepush", ""},
		{"postgresql", "state: postgresql://db.example/sitepush?sslmode=disable", ""},
		{"sqlite without a path", "state: \"sqlite:\"", "state sqlite: needs a file path, like sqlite:sitepush.db"},
		{"other scheme, value not echoed", "state: mysql://root:hunter2@h/db",
			`state must be sqlite:PATH (like sqlite:sitepush.db), a PostgreSQL URL (like postgres://user:pass@host/db) or memory (nothing kept between runs); got a value with the scheme "mysql:"`},
		{"bare path, not echoed", "state: hunter2.db",
			"state has no scheme (its value is not shown: it may hold a password); it must be sqlite:PATH (like sqlite:sitepush.db), " +
				"a PostgreSQL URL (like postgres://user:pass@host/db) or memory (nothing kept between runs). A key=value connection string (host=… password=…) must be written as such a URL"},
		{"key=value DSN, not echoed", "state: host=db user=u password=hunter2 dbname=sitepush", "state has no scheme"},
		{"key=value DSN with a colon, not echoed", "state: \"password=hunter2:x host=db\"", "state has no scheme"},
		{"empty", "state: \"\"", "state is empty; it must be sqlite:PATH"},
		{"postgres without //", "state: postgres:db", "state is not a valid PostgreSQL URL"},
		{"postgres bad password", "state: \"postgres://u:p%zz@h/db\"", "state is not a valid PostgreSQL URL; write postgres://user:pass@host/db, percent-encoding @ : / in the password as %40 %3A %2F"},
		{"listen", "listen: 127.0.0.1:8080", ""},
		{"listen any host", "listen: :0", ""},
		{"listen ipv6", "listen: \"[::1]:65535\"", ""},
		{"listen no port", "listen: localhost", `listen "localhost" must be host:port with a port from 0 to 65535, like 127.0.0.1:8080 or :8080`},
		{"listen named port", "listen: \"localhost:http\"", `listen "localhost:http" must be host:port`},
		{"listen port too big", "listen: \":65536\"", `listen ":65536" must be host:port`},
		{"listen port with a sign", "listen: \":+80\"", `listen ":+80" must be host:port`},
		{"listen port negative", "listen: \":-1\"", `listen ":-1" must be host:port`},
		{"userAgent", "userAgent: mybot/1.0", ""},
		{"userAgent empty", "userAgent: \"\"", "userAgent is empty; remove the key to send the default"},
		{"userAgent two lines", "userAgent: \"a\\nb\"", `userAgent "a\nb" must be one line without control characters`},
		{"webhook", "webhook: {url: https://h.example/x, failureRate: 1}", ""},
		{"webhook without url", "webhook: {failureRate: 0.5}", "webhook.url is required when webhook is given"},
		{"webhook bad url, not echoed", "webhook: {url: \"hooks.example/s3cret\"}",
			"webhook.url must be an absolute http(s) URL, like https://hooks.example.com/x"},
		{"webhook ftp", "webhook: {url: \"ftp://h.example/x\"}", "webhook.url must be an absolute http(s) URL"},
		{"failureRate above 1", "webhook: {url: https://h.example/x, failureRate: 1.5}", "webhook.failureRate must be between 0 and 1, got 1.5"},
		{"failureRate negative", "webhook: {url: https://h.example/x, failureRate: -0.1}", "webhook.failureRate must be between 0 and 1, got -0.1"},
		{"serve", "serve: {concurrency: 1000}", ""},
		{"serve empty", "serve:", ""},
		{"concurrency 0", "serve: {concurrency: 0}",
			"serve.concurrency must be between 1 and 1000 (the scheduled runs that go at once), got 0; remove the key for the default 4"},
		{"concurrency too big", "serve: {concurrency: 1001}", "serve.concurrency must be between 1 and 1000"},
		{"concurrency negative", "serve: {concurrency: -2}", "serve.concurrency must be between 1 and 1000"},
		{"failureRate NaN", "webhook: {url: https://h.example/x, failureRate: .nan}", "webhook.failureRate must be between 0 and 1, got NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc+"\n", nil)
			checkErr(t, err, tt.want)
			if err != nil && strings.Contains(err.Error(), "hunter2") || err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows a secret", err)
			}
			if tt.want != "" && err != nil && !strings.HasPrefix(err.Error(), strings.Fields(tt.want)[0]) {
				t.Errorf("error %q does not start with the field", err)
			}
		})
	}
}

func TestValidateSiteIdentity(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"valid", "sites:\n  - id: Blog_1.example-x\n    sitemaps: [https://a.example/s.xml]", ""},
		{"id missing", "sites:\n  - sitemaps: [https://a.example/s.xml]", "site #1: id is required"},
		{"id with a space", "sites:\n  - id: my blog\n    sitemaps: [https://a.example/s.xml]",
			`site "my blog": id "my blog" must be 1–64 characters of A–Z, a–z, 0–9, ".", "_" and "-", starting with a letter or digit (it appears in URLs)`},
		{"id starting with a dot", "sites:\n  - id: .x\n    sitemaps: [https://a.example/s.xml]", `site ".x": id ".x" must be`},
		{"id of 65", "sites:\n  - id: " + strings.Repeat("a", 65) + "\n    sitemaps: [https://a.example/s.xml]", "must be 1–64 characters"},
		{"id twice", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n  - id: b\n    sitemaps: [https://b.example/s.xml]\n  - id: a\n    sitemaps: [https://c.example/s.xml]",
			`site "a": id "a" is already used by the site at line 2; give each site its own id`},
		{"id twice, other case", "sites:\n  - id: Blog\n    sitemaps: [https://a.example/s.xml]\n  - id: blog\n    sitemaps: [https://b.example/s.xml]",
			`site "blog": id "blog" is already used, as "Blog", by the site at line 2: ids that differ only by case are the same`},
		{"no sitemaps", "sites:\n  - id: a", `site "a": sitemaps needs at least one sitemap URL or file path`},
		{"empty list", "sites:\n  - id: a\n    sitemaps: []", `site "a": sitemaps needs at least one`},
		{"ftp sitemap", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml, \"ftp://a.example/s.xml\"]",
			`site "a": sitemaps[1] "ftp://a.example/s.xml" must be an absolute http(s) URL with a host, or a file path`},
		{"URL without host", "sites:\n  - id: a\n    baseUrl: https://a.example\n    sitemaps: [\"https:///s.xml\"]", `site "a": sitemaps[0] "https:///s.xml" must be`},
		{"empty sitemap", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml, \"\"]", `site "a": sitemaps[1] is empty`},
		{"file with baseUrl", "sites:\n  - id: a\n    sitemaps: [public/sitemap.xml]\n    baseUrl: https://a.example", ""},
		{"baseUrl with a path", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    baseUrl: https://a.example/blog",
			`site "a": baseUrl "https://a.example/blog" must be an origin like https://a.example, without a path, query or fragment; to limit the submitted paths, use include: ["/blog/**"]`},
		{"baseUrl with a query", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    baseUrl: https://a.example?x=1", "must be an origin like https://a.example"},
		{"baseUrl with a fragment", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    baseUrl: https://a.example#top", "must be an origin"},
		{"baseUrl with an empty query", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    baseUrl: https://a.example?", "must be an origin"},
		{"baseUrl with a user", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    baseUrl: https://me@a.example", "must be an origin"},
		{"baseUrl not http", "sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    baseUrl: a.example",
			`site "a": baseUrl "a.example" must be an absolute http(s) URL with a host, like https://example.com`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc+"\n", nil)
			checkErr(t, err, tt.want)
		})
	}
}

func TestSitemapsWithoutScheme(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    string
		notWant string
	}{
		{"file needs baseUrl", "sites:\n  - id: a\n    sitemaps: [public/sitemap.xml]",
			`site "a": baseUrl is required: sitemaps[0] has no scheme, so it was taken as the local file /etc/sitepush/public/sitemap.xml; ` +
				"give the origin of the site's URLs, like baseUrl: https://example.com", ""},
		{"host without a scheme", "sites:\n  - id: x\n    sitemaps: [example.com/sitemap.xml]",
			`site "x": sitemaps[0] "example.com/sitemap.xml" has no scheme; write https://example.com/sitemap.xml ` +
				"(a local file needs a path like ./example.com/sitemap.xml)", "baseUrl"},
		{"second sitemap a host", "sites:\n  - id: x\n    sitemaps: [https://x.example/s.xml, www.x.example/news/s.xml]",
			`site "x": sitemaps[1] "www.x.example/news/s.xml" has no scheme; write https://www.x.example/news/s.xml`, ""},
		{"file name with a dot", "sites:\n  - id: a\n    sitemaps: [sitemap.xml]\n    baseUrl: https://a.example", "", ""},
		{"file URL", "sites:\n  - id: a\n    baseUrl: https://a.example\n    sitemaps: [\"file:///srv/s.xml\"]",
			`site "a": sitemaps[0] "file:///srv/s.xml": file: URLs are not accepted; write the file's path, like /srv/www/sitemap.xml`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc+"\n", nil)
			checkErr(t, err, tt.want)
			if err != nil && tt.notWant != "" && strings.Contains(err.Error(), tt.notWant) {
				t.Errorf("error %q contains %q", err, tt.notWant)
			}
		})
	}
}

func TestValidateSchedulingAndLimits(t *testing.T) {
	tests := []struct{ name, extra, want string }{
		{"cron", `schedule: "*/15 2-5 * * 1-5"`, ""},
		{"descriptor", "schedule: \"@daily\"", ""},
		{"every", "schedule: \"@every 6h\"", ""},
		{"every minute", "schedule: \"@every 1m\"", ""},
		{"every 59s", "schedule: \"@every 59s\"", `site "example.com": schedule "@every 59s" must be at least @every 1m0s`},
		{"every 0", "schedule: \"@every 0s\"", `schedule "@every 0s" must be at least @every 1m0s`},
		{"every negative", "schedule: \"@every -5m\"", `schedule "@every -5m" must be at least @every 1m0s`},
		{"never", "schedule: \"0 0 30 2 *\"", `site "example.com": schedule "0 0 30 2 *" never fires (no such date)`},
		{"four fields", `schedule: "0 0 * *"`, `site "example.com": schedule "0 0 * *" is not a cron expression (expected exactly 5 fields, found 4: [0 0 * *]); use five fields`},
		{"six fields", `schedule: "0 0 0 * * *"`, "is not a cron expression"},
		{"out of range", `schedule: "0 25 * * *"`, `schedule "0 25 * * *" is not a cron expression`},
		{"empty", `schedule: ""`, `site "example.com": schedule is required; use five fields`},
		{"CRON_TZ", `schedule: "CRON_TZ=Europe/Paris 0 0 * * *"`, `site "example.com": schedule "CRON_TZ=Europe/Paris 0 0 * * *" must not set a time zone: schedules are always UTC`},
		{"TZ", `schedule: "TZ=UTC 0 0 * * *"`, "schedules are always UTC"},
		{"runBudget", "runBudget: 1s", ""},
		{"runBudget zero", "runBudget: 0", `site "example.com": runBudget must be more than 0, got 0s`},
		{"resubmitAfter zero", "resubmitAfter: 0", ""},
		{"resubmitAfter negative", "resubmitAfter: -1h", `site "example.com": resubmitAfter must be 0 (never) or more, got -1h0m0s`},
		{"sitemap ok", "sitemap: {timeout: 1s, retries: 0, retryInterval: 0, maxBytes: 1024, maxDepth: 10}", ""},
		{"sitemap max", "sitemap: {retries: 10, maxBytes: 2147483648, maxDepth: 1}", ""},
		{"timeout zero", "sitemap: {timeout: 0}", `site "example.com": sitemap.timeout must be more than 0, got 0s`},
		{"retries", "sitemap: {retries: 11}", `site "example.com": sitemap.retries must be between 0 and 10, got 11`},
		{"retries negative", "sitemap: {retries: -1}", "sitemap.retries must be between 0 and 10, got -1"},
		{"retryInterval", "sitemap: {retryInterval: -1s}", `site "example.com": sitemap.retryInterval must be 0 or more, got -1s`},
		{"maxBytes small", "sitemap: {maxBytes: 1023}", `site "example.com": sitemap.maxBytes must be between 1024 and 2147483648 (1 KiB to 2 GiB), got 1023`},
		{"maxBytes big", "sitemap: {maxBytes: 2147483649}", "sitemap.maxBytes must be between 1024 and 2147483648"},
		{"maxDepth", "sitemap: {maxDepth: 0}", `site "example.com": sitemap.maxDepth must be between 1 and 10, got 0`},
		{"globs", `include: ["/blog/**", "/a/*/b?"]`, ""},
		{"include without slash", `include: ["blog/**"]`, `site "example.com": include[0] "blog/**" must start with "/", like "/blog/**"`},
		{"exclude without slash", `exclude: ["/ok", "*.pdf"]`, `site "example.com": exclude[1] "*.pdf" must start with "/"`},
		{"double star in a segment", `include: ["/a**"]`, `site "example.com": include[0] "/a**" uses "**" inside a segment`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(siteDoc(tt.extra), nil)
			checkErr(t, err, tt.want)
		})
	}
}

func TestValidateCollectsEverything(t *testing.T) {
	doc := "listen: nope\nsites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    runBudget: 0\n    bing: {enabled: true}\n" +
		"  - id: b\n    sitemaps: []\n"
	_, err := parse(doc, nil)
	want := []string{
		`listen "nope" must be host:port`,
		`site "a": runBudget must be more than 0`,
		`site "a": bing.apiKey is required when bing.enabled is true`,
		`site "b": sitemaps needs at least one`,
	}
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, lines[i], w)
		}
	}
}

func TestProblemsReportedWhereWritten(t *testing.T) {
	const a = "  - id: a\n    sitemaps: [https://a.example/s.xml]\n"
	const b = "  - id: b\n    sitemaps: [https://b.example/s.xml]\n"
	tests := []struct {
		name      string
		doc       string
		want      []string
		notWanted string
	}{
		{"defaults once", "defaults:\n  runBudget: 0\nsites:\n" + a + b + "    runBudget: -1s\n",
			[]string{"defaults: runBudget must be more than 0, got 0s", `site "b": runBudget must be more than 0, got -1s`}, `site "a"`},
		{"a site's own mistake equal to the defaults'", "defaults:\n  runBudget: 0\nsites:\n" + a + b + "    runBudget: 0\n",
			[]string{"defaults: runBudget must be more than 0, got 0s", `site "b": runBudget must be more than 0, got 0s`}, `site "a"`},
		{"list in defaults", "defaults:\n  include: [blog]\nsites:\n" + a,
			[]string{`defaults: include[0] "blog" must start with "/"`}, `site "a"`},
		{"rule between fields, inherited from built-ins", "defaults:\n  feed: {maxItems: 5}\nsites:\n" + a,
			[]string{"defaults: feed.baselineItems (10, inherited) must be at most feed.maxItems (5)"}, `site "a"`},
		{"rule between fields, inherited from defaults", "defaults:\n  feed: {baselineItems: 40}\nsites:\n" + a + "    feed: {maxItems: 30}\n",
			[]string{`site "a": feed.baselineItems (40, inherited) must be at most feed.maxItems (30)`}, "defaults"},
		{"rule between fields, both the site's", "sites:\n" + a + "    feed: {maxItems: 3, baselineItems: 4}\n",
			[]string{`site "a": feed.baselineItems (4) must be at most feed.maxItems (3)`}, "inherited"},
		{"required key, enabled in defaults", "defaults:\n  bing: {enabled: true}\nsites:\n" + a + b + "    bing: {apiKey: k}\n",
			[]string{`site "a": bing.apiKey is required when bing.enabled is true`}, `site "b"`},
		{"keyLocation from defaults", "defaults:\n  indexnow: {keyLocation: https://cdn.example/k.txt}\nsites:\n" + a,
			[]string{`site "a": indexnow.keyLocation "https://cdn.example/k.txt" must be on baseUrl's host (a.example)`}, "defaults"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc, nil)
			for _, w := range tt.want {
				checkErr(t, err, w)
			}
			if err != nil && strings.Contains(err.Error(), tt.notWanted) {
				t.Errorf("error %q contains %q", err, tt.notWanted)
			}
		})
	}
}

func TestFeedOutUnique(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"same path written two ways",
			"sites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    feed: {enabled: true, out: feed.xml}\n" +
				"  - id: b\n    sitemaps: [https://b.example/s.xml]\n    feed: {enabled: true, out: ./x/../feed.xml}\n",
			`site "b": feed.out "/etc/sitepush/feed.xml" is also written by site "a" (line 2); give each site its own file`},
		{"inherited",
			"defaults:\n  feed: {enabled: true, out: feed.xml}\nsites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n" +
				"  - id: b\n    sitemaps: [https://b.example/s.xml]\n",
			`site "b": feed.out "/etc/sitepush/feed.xml" (inherited) is also written by site "a" (line 4)`},
		{"a disabled feed writes nothing",
			"defaults:\n  feed: {out: feed.xml}\nsites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    feed: {enabled: true}\n" +
				"  - id: b\n    sitemaps: [https://b.example/s.xml]\n", ""},
		{"own files",
			"defaults:\n  feed: {enabled: true}\nsites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    feed: {out: a.xml}\n" +
				"  - id: b\n    sitemaps: [https://b.example/s.xml]\n    feed: {out: b.xml}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.doc, nil)
			checkErr(t, err, tt.want)
		})
	}
}

// TestFeedOutUniqueWhateverTheSpelling checks that two spellings of one file are one file: an
// absolute path with "." or "..", and a path through a symbolic link.
func TestFeedOutUniqueWhateverTheSpelling(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "public")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "www")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	two := func(a, b string) string {
		return "defaults:\n  feed: {enabled: true}\nsites:\n  - id: a\n    sitemaps: [https://a.example/s.xml]\n    feed: {out: " + a + "}\n" +
			"  - id: b\n    sitemaps: [https://b.example/s.xml]\n    feed: {out: " + b + "}\n"
	}
	for _, tc := range []struct{ name, a, b string }{
		{"an absolute path with . and ..", real + "/feed.xml", real + "/./x/../feed.xml"},
		{"a symbolic link to the directory", real + "/feed.xml", filepath.Join(dir, "www", "feed.xml")},
		{"a relative path through the link", "public/feed.xml", "www/feed.xml"},
	} {
		_, err := Parse([]byte(two(tc.a, tc.b)), dir, nil)
		if err == nil || !strings.Contains(err.Error(), `is also written by site "a"`) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestSiteValidate(t *testing.T) {
	s := Site{ID: "api", Sitemaps: []string{"https://api.example/s.xml"}, Settings: Builtin()}
	s.Bing.Enabled = true
	err := s.Validate()
	if err == nil || err.Error() != `site "api": bing.apiKey is required when bing.enabled is true` {
		t.Errorf("Validate() = %v", err)
	}
	s.Bing.APIKey = "k"
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	if s.BaseURL != "https://api.example" || s.Cron() == nil {
		t.Errorf("Validate did not derive baseUrl (%q) or compile the schedule", s.BaseURL)
	}
	var empty Site
	err = empty.Validate()
	checkErr(t, err, "site: id is required")
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n < 5 {
		t.Errorf("a zero Site gave %d problems, want one per broken field:\n%v", n, err)
	}
}

func TestBuiltinIsValid(t *testing.T) {
	s := Site{ID: "x", Sitemaps: []string{"https://x.example/s.xml"}, Settings: Builtin()}
	if err := s.Validate(); err != nil {
		t.Errorf("a site with only built-in settings is invalid: %v", err)
	}
	a, b := Builtin(), Builtin()
	a.IndexNow.Endpoints[0] = "changed"
	if b.IndexNow.Endpoints[0] == "changed" {
		t.Error("Builtin() returns shared slices")
	}
}
