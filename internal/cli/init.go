package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/sitemap"
	"github.com/sitepush/sitepush/internal/version"
	"go.yaml.in/yaml/v3"
)

// initSite is what `sitepush init` learned about a site and writes down.
type initSite struct {
	base      string // the site's origin, scheme://host[:port]
	host      string // base's host and port, in lower case: URLs elsewhere are not submitted
	id        string
	key       string
	sitemaps  []string
	where     string            // where the sitemaps were found: "listed in robots.txt", "at the usual paths", "" if given
	urls      int               // distinct page URLs on host
	foreign   int               // page URLs on other hosts
	elsewhere string            // one of those other hosts
	failed    []sitemap.Sitemap // sitemaps below those kept, or named by the owner, that failed
}

// runInit writes a configuration for a site, with the sitemaps it finds there and a fresh
// IndexNow key, and optionally the key file; it never overwrites a file.
func runInit(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	path := configFlag(fs)
	keyDir := fs.String("key-dir", "", "write the key file {key}.txt into `DIR`, the site's document root (which must exist)")
	pos, err := parseArgs(e, cmd, fs, args, 1, 1)
	if err != nil {
		return err
	}
	target, err := siteURL(pos[0])
	if err != nil {
		return err
	}
	if err := checkFree(*path, *keyDir); err != nil {
		return err
	}
	s := &initSite{base: target.Scheme + "://" + target.Host, host: strings.ToLower(target.Host)}
	s.id = siteID(target.Hostname())
	if err := s.discover(e.ctx, target); err != nil {
		return err
	}
	s.key = newKey()
	keyFile := ""
	if *keyDir != "" {
		keyFile = filepath.Join(*keyDir, s.key+".txt")
		if err := notThere(keyFile, "key file"); err != nil {
			return err
		}
	}
	text := s.config()
	if err := s.validate(text, *path); err != nil {
		return err
	}
	if err := writeNew(keyFile, *path, s.key, text); err != nil {
		return err
	}
	s.report(e, *path, keyFile)
	return nil
}

// siteURL parses init's argument: a site's root, its robots.txt, or a sitemap.
func siteURL(arg string) (*url.URL, error) {
	u, err := url.Parse(arg)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, usageError("sitepush init: %q is not the URL of a site: write it whole, like https://example.com/", arg)
	}
	u.Fragment = ""
	return u, nil
}

// checkFree refuses, before anything is read or written, a configuration file that exists or
// whose directory does not, and a key directory that does not exist.
func checkFree(path, keyDir string) error {
	if path == "" {
		return usageError("--config needs a file name, like sitepush.yaml")
	}
	if err := notThere(path, "configuration"); err != nil {
		return err
	}
	if err := isDir(filepath.Dir(path)); err != nil {
		return usageError("the directory of --config %s: %v: create it first", path, err)
	}
	if keyDir != "" {
		if err := isDir(keyDir); err != nil {
			return usageError("--key-dir %s: %v: give the directory the site is served from, which must exist", keyDir, err)
		}
	}
	return nil
}

// notThere refuses a file that exists: init never overwrites one.
func notThere(path, what string) error {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return usageError("%s %s already exists: sitepush init never overwrites a file; remove it, or choose another path (nothing was written)", what, path)
	case !errors.Is(err, fs.ErrNotExist):
		return usageError("%s %s: %v", what, path, err)
	}
	return nil
}

// isDir says why dir is not a directory, or returns nil.
func isDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such directory")
	case err != nil:
		return err
	case !fi.IsDir():
		return errors.New("not a directory")
	}
	return nil
}

// siteID derives a site id from a host name: the host without "www.", in lower case, any
// character an id may not have replaced by "-" (config's rule: letters, digits, ".", "_", "-",
// starting with a letter or digit, at most 64).
func siteID(hostname string) string {
	h := strings.TrimPrefix(strings.ToLower(hostname), "www.")
	b := []byte(h)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	id := strings.TrimLeft(string(b), "._-")
	if len(id) > 64 {
		id = strings.TrimRight(id[:64], "._-")
	}
	if id == "" {
		return "site"
	}
	return id
}

// usualSitemaps are the paths tried when robots.txt names no sitemap. Indexes come first: a
// sitemap that an index already lists is then not written down again.
func usualSitemaps() []string {
	return []string{"/sitemap_index.xml", "/sitemap-index.xml", "/wp-sitemap.xml", "/sitemap.xml", "/sitemap.txt"}
}

// discover finds the site's sitemaps: the one given, else those robots.txt lists, else those at
// the usual paths. Finding none is an error that names every place tried; a host that cannot be
// reached at all is an error before any of them is tried.
func (s *initSite) discover(ctx context.Context, target *url.URL) error {
	client := httpClient()
	if err := reachSite(ctx, client, s.base); err != nil {
		return err
	}
	opt := runner.ReaderOptions(&config.Site{Settings: config.Builtin()}, client, version.UserAgent())
	r := sitemap.NewReader(opt)
	if p := target.Path; p != "" && p != "/" && p != "/robots.txt" || target.RawQuery != "" {
		return s.given(ctx, r, target.String())
	}
	tried, err := s.fromRobots(ctx, r)
	if err != nil || len(s.sitemaps) > 0 {
		return err
	}
	return s.fromUsualPaths(ctx, r, tried)
}

// given reads the sitemap init was given.
func (s *initSite) given(ctx context.Context, r *sitemap.Reader, sm string) error {
	failed, err := s.read(ctx, r, []string{sm}, true)
	if err != nil {
		return err
	}
	if len(s.sitemaps) == 0 {
		return fmt.Errorf("%s could not be read as a sitemap: %v (nothing was written)", sm, failed[0].Err)
	}
	s.failed = failed
	return s.inScope()
}

// fromRobots reads the sitemaps robots.txt lists. When none can be read, it returns what it
// tried, for the error that ends the search.
func (s *initSite) fromRobots(ctx context.Context, r *sitemap.Reader) ([]string, error) {
	robots := s.base + "/robots.txt"
	names, err := r.Robots(ctx, robots)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil:
		return []string{fmt.Sprintf("%s: %v", robots, err)}, nil
	case len(names) == 0:
		return []string{robots + ": no Sitemap: lines"}, nil
	}
	failed, err := s.read(ctx, r, names, true)
	if err != nil {
		return nil, err
	}
	if len(s.sitemaps) > 0 {
		s.where, s.failed = "listed in robots.txt", failed
		return nil, s.inScope()
	}
	return append([]string{robots + ": lists " + human.Count(len(names), "sitemap") + ", none readable"}, failures(failed)...), nil
}

// fromUsualPaths reads the sitemaps at the usual paths, after tried.
func (s *initSite) fromUsualPaths(ctx context.Context, r *sitemap.Reader, tried []string) error {
	var usual []string
	for _, p := range usualSitemaps() {
		usual = append(usual, s.base+p)
	}
	failed, err := s.read(ctx, r, usual, false)
	if err != nil {
		return err
	}
	if len(s.sitemaps) > 0 {
		s.where = "at the usual paths"
		for _, f := range failed {
			if f.Depth > 0 {
				s.failed = append(s.failed, f) // the guesses that failed are no news
			}
		}
		return s.inScope()
	}
	tried = append(tried, failures(failed)...)
	return fmt.Errorf("no sitemap found on %s; tried:\n  %s\nName the sitemap instead: sitepush init %s/PATH/TO/sitemap.xml, "+
		"or list it in robots.txt as Sitemap: %s/PATH/TO/sitemap.xml (nothing was written)",
		s.base, strings.Join(tried, "\n  "), s.base, s.base)
}

// read reads srcs as one run would, counting page URLs on the site's host and elsewhere, and
// keeps in s.sitemaps those that could be read. Of the sitemaps the owner named (listed), all
// readable ones are kept; of guesses, those that add pages, or the first readable one when none
// does. It returns the sitemaps that failed.
func (s *initSite) read(ctx context.Context, r *sitemap.Reader, srcs []string, listed bool) ([]sitemap.Sitemap, error) {
	s.urls, s.foreign, s.elsewhere, s.sitemaps = 0, 0, "", nil
	res, err := r.Read(ctx, srcs, func(en sitemap.Entry) error {
		h := hostOf(en.URL)
		if strings.EqualFold(h, s.host) {
			s.urls++
			return nil
		}
		s.foreign++
		if s.elsewhere == "" {
			s.elsewhere = strings.ToLower(h)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var failed []sitemap.Sitemap
	var readable []string
	for i, sm := range res.Sitemaps {
		switch {
		case sm.Err != nil:
			failed = append(failed, sm)
		case sm.Depth == 0:
			readable = append(readable, uriOf(sm.URL))
			if listed || pages(res.Sitemaps, i) > 0 {
				s.sitemaps = append(s.sitemaps, uriOf(sm.URL))
			}
		}
	}
	if len(s.sitemaps) == 0 && len(readable) > 0 {
		s.sitemaps = readable[:1]
	}
	return failed, nil
}

// pages counts the page URLs first read from the sitemap at i and from the sitemaps it lists,
// which follow it in the Result, one level deeper or more.
func pages(all []sitemap.Sitemap, i int) int {
	n := 0
	for j := i; j < len(all) && (j == i || all[j].Depth > all[i].Depth); j++ {
		if all[j].Kind != sitemap.KindIndex {
			n += all[j].Entries
		}
	}
	return n
}

// inScope refuses sitemaps whose pages are all on other hosts: a run would never submit one.
func (s *initSite) inScope() error {
	if s.urls == 0 && s.foreign > 0 {
		scheme, _, _ := strings.Cut(s.base, ":")
		return fmt.Errorf("the %s found for %s %s, all on other hosts, like %s, and a run submits only URLs on %s: "+
			"run sitepush init with the site's own address, like %s://%s/ (nothing was written)",
			human.Count(len(s.sitemaps), "sitemap"), s.base, haveURLs(s.foreign), s.elsewhere, s.host, scheme, s.elsewhere)
	}
	return nil
}

// haveURLs writes "have 3 URLs", "has 1 URL".
func haveURLs(n int) string {
	if n == 1 {
		return "has 1 URL"
	}
	return "have " + human.Count(n, "URL")
}

// failures writes each failed sitemap as "URL: why".
func failures(failed []sitemap.Sitemap) []string {
	out := make([]string, len(failed))
	for i, f := range failed {
		out[i] = fmt.Sprintf("%s: %v", f.URL, f.Err)
	}
	return out
}

// hostOf returns the host of an absolute URL, with its port, as a run compares it.
func hostOf(u []byte) string {
	if i := bytes.Index(u, []byte("://")); i >= 0 {
		u = u[i+3:]
	}
	if i := bytes.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	return string(u)
}

// config writes the site's configuration file, with what is commented out that one may turn on.
func (s *initSite) config() string {
	var b strings.Builder
	found := human.Count(s.urls, "URL")
	if s.where != "" {
		found = s.where + ": " + found
	}
	fmt.Fprintf(&b, `# sitepush configuration for %[1]s, written by sitepush init.
# Every setting: docs/configuration.md. Relative paths are resolved against this file's directory.

# What was submitted where: a SQLite file next to this one.
state: sqlite:sitepush.db

sites:
  - id: %[2]s
    baseUrl: %[1]s   # only URLs on this host are submitted
    sitemaps:   # %[3]s
`, s.base, s.id, found)
	for _, sm := range s.sitemaps {
		fmt.Fprintf(&b, "      - %s\n", yamlScalar(sm))
	}
	fmt.Fprintf(&b, `    # When sitepush serve runs the site: hourly, at minute %[4]d (cron, UTC), so that a new page goes out
    # within the hour, not the next day (the default is daily at midnight). sitepush run ignores it.
    schedule: "%[4]d * * * *"
    indexnow:
      enabled: true
      key: %[1]s   # public by design: the site serves it at keyLocation
      keyLocation: %[2]s/%[1]s.txt
      backlog: 168h   # first run: only the pages changed in the last week, as the IndexNow FAQ asks (all: every page)
    # bing:   # the Bing Webmaster API: a key from https://www.bing.com/webmasters (Settings, API access)
    #   enabled: true
    #   apiKey: ${BING_API_KEY}   # read from the environment, kept out of this file
    #   backlog: all   # first run: every page; Bing's daily quota paces them, newest first
    # feed:   # an RSS feed of the new pages, at /feeds/%[3]s.xml of sitepush serve
    #   enabled: true
    #   out: feed.xml   # also written here after each run that changes it
`, s.key, s.base, s.id, s.minute())
	return b.String()
}

// minute is the minute of the hour the site's hourly schedule runs at: one taken from its random
// key, so that the sites sitepush init set up do not all call the engines at once.
func (s *initSite) minute() int {
	n := 0
	for _, c := range s.key {
		n = (n*31 + int(c)) % 60
	}
	return n
}

// uriOf writes a URL with each byte a URI may not hold raw percent-encoded (RFC 3986: spaces,
// controls, what is not ASCII, and "<>\"\\^`{|}"): the same URL to every server, in ASCII that a
// configuration file keeps whole — no line break YAML reads inside a value (U+0085, U+2028), no
// "${", which the configuration reads as an environment variable.
func uriOf(u string) string {
	const upperhex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("<>\"\\^`{|}", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(upperhex[c>>4])
			b.WriteByte(upperhex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// yamlScalar writes s as a YAML value that reads back as s: plain when it can be, quoted when YAML
// would read it otherwise (a URL ending in ":" is a mapping's key).
func yamlScalar(s string) string {
	out, _ := yaml.Marshal(s) // a string always marshals
	return strings.TrimSuffix(string(out), "\n")
}

// validate loads the configuration about to be written, as config.Load will read it from path.
func (s *initSite) validate(text, path string) error {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	noEnv := func(string) (string, bool) { return "", false }
	if _, err := config.Parse([]byte(text), dir, noEnv); err != nil {
		return fmt.Errorf("the configuration for %s does not load, which is a bug of sitepush init: %w (nothing was written)", s.base, err)
	}
	return nil
}

// writeNew writes the key file, when asked for, then the configuration, each only if it does
// not exist yet; when the configuration cannot be written, the key file is removed again.
func writeNew(keyFile, path, key, text string) error {
	if keyFile != "" {
		if err := createFile(keyFile, key, "key file"); err != nil {
			return err
		}
	}
	if err := createFile(path, text, "configuration"); err != nil {
		if keyFile != "" {
			os.Remove(keyFile)
		}
		return err
	}
	return nil
}

// createFile writes a new file, mode 0644, refusing one that exists.
func createFile(path, content, what string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return notThere(path, what)
	}
	if err != nil {
		return fmt.Errorf("writing the %s: %w", what, err)
	}
	if _, err := io.WriteString(f, content); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("writing the %s %s: %w", what, path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("writing the %s %s: %w", what, path, err)
	}
	return nil
}

// report tells what init found and wrote, and what to do next; warnings go to stderr.
func (s *initSite) report(e *env, path, keyFile string) {
	for _, f := range s.failed {
		if f.Index != "" {
			fmt.Fprintf(e.stderr, "warning: %s: %v (the index %s lists it, so runs will fail on it: fix that entry of the index, or the server)\n", f.URL, f.Err, f.Index)
			continue
		}
		fmt.Fprintf(e.stderr, "warning: %s: %v (left out: add it under sitemaps: once it can be read)\n", f.URL, f.Err)
	}
	w := e.stdout
	fmt.Fprintf(w, "found %s with %s on %s", human.Count(len(s.sitemaps), "sitemap"), human.Count(s.urls, "URL"), s.host)
	if s.where != "" {
		fmt.Fprintf(w, " (%s)", s.where)
	}
	fmt.Fprintln(w, ":")
	for _, sm := range s.sitemaps {
		fmt.Fprintf(w, "  %s\n", sm)
	}
	if s.foreign > 0 {
		fmt.Fprintf(w, "  and %s on other hosts, like %s, which runs do not submit\n", human.Count(s.foreign, "URL"), s.elsewhere)
	}
	if keyFile != "" {
		fmt.Fprintf(w, "wrote the IndexNow key file %s\n", keyFile)
	}
	fmt.Fprintf(w, "wrote %s: site %s, IndexNow on (its first run sends the pages changed in the last week: backlog 168h)\n\nNext:\n", path, s.id)
	keyURL := s.base + "/" + s.key + ".txt"
	if keyFile != "" {
		fmt.Fprintf(w, "  1. publish the site so that %s serves the key file %s\n", keyURL, keyFile)
	} else {
		fmt.Fprintf(w, "  1. publish a file at %s holding exactly the key: %s\n", keyURL, s.key)
	}
	cfg := shellQuote(path)
	steps := [][2]string{
		{"sitepush check --config " + cfg, "reads the sitemaps and the key file, writes nothing"},
		{"sitepush run --config " + cfg + " --dry-run", "what the first run would submit"},
		{"sitepush run --config " + cfg, "submit; then from cron, or with sitepush serve"},
	}
	width := 0
	for _, st := range steps {
		width = max(width, len(st[0]))
	}
	for i, st := range steps {
		fmt.Fprintf(w, "  %d. %-*s   # %s\n", i+2, width, st[0], st[1])
	}
}

// shellQuote quotes s for a POSIX shell when it holds anything but the characters of plain paths.
func shellQuote(s string) string {
	plain := s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("/._-+:,=@%", r))
	})
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
