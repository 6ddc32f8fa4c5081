package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/sitemap"
	"github.com/sitepush/sitepush/internal/store"
)

// checker runs the preflight checks of `sitepush check` and prints one line for each.
type checker struct {
	e      *env
	cfg    *config.Config
	st     *store.Store
	client *http.Client
	failed int
}

func (c *checker) pass(format string, a ...any) { fmt.Fprintf(c.e.stdout, "  ✓ "+format+"\n", a...) }
func (c *checker) warn(format string, a ...any) { fmt.Fprintf(c.e.stdout, "  ! "+format+"\n", a...) }
func (c *checker) fail(format string, a ...any) {
	c.failed++
	fmt.Fprintf(c.e.stdout, "  ✗ "+format+"\n", a...)
}

// runCheck checks, without writing anything, that each site would run: the configuration, each
// sitemap, the IndexNow key file, the Bing API key and today's quota.
func runCheck(e *env, cmd command, args []string) error {
	fs := newFlags(cmd.name)
	path := configFlag(fs)
	var ids stringList
	fs.Var(&ids, "site", "check only site `ID` (repeatable)")
	if _, err := parseArgs(e, cmd, fs, args, 0, 0); err != nil {
		return err
	}
	cfg, err := loadConfig(*path)
	if err != nil {
		return err
	}
	sites, err := selectSites(cfg, ids)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "✓ configuration %s: valid, %s\n", *path, plural(len(cfg.Sites), "site"))
	st, err := store.OpenReadOnly(e.ctx, cfg.State)
	if err != nil {
		return err
	}
	defer st.Close()
	c := &checker{e: e, cfg: cfg, st: st, client: httpClient()}
	for _, s := range sites {
		fmt.Fprintf(e.stdout, "site %s:\n", s.ID)
		c.sitemaps(s)
		if s.IndexNow.Enabled {
			c.keyFile(s)
		}
		if s.Bing.Enabled {
			c.bing(s)
		}
	}
	if c.failed > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%s failed", plural(c.failed, "check"))}
	}
	return nil
}

// sitemaps reads each sitemap of s whole, as a run would, and counts its URLs.
func (c *checker) sitemaps(s *config.Site) {
	r := sitemap.NewReader(runner.ReaderOptions(s, c.client, c.cfg.UserAgent))
	for _, sm := range s.Sitemaps {
		n := 0
		res, err := r.Read(c.e.ctx, []string{sm}, func(sitemap.Entry) error { n++; return nil })
		if err != nil {
			c.fail("sitemap %s: %v", sm, err)
			continue
		}
		files := 0
		for _, f := range res.Sitemaps {
			if f.Err != nil {
				c.fail("sitemap %s: %v — fix the sitemaps: entry, or the server", f.URL, f.Err)
			} else if f.Kind != sitemap.KindIndex {
				files++
			}
		}
		if !res.Unreadable() {
			c.pass("sitemap %s: %s URLs in %s", sm, count(n), plural(files, "file"))
		}
	}
}

// keyFile fetches the IndexNow key file, which must hold exactly the key.
func (c *checker) keyFile(s *config.Site) {
	loc := s.IndexNow.KeyLocation
	fix := fmt.Sprintf("publish a file at %s whose content is exactly the key (%s)", loc, config.MaskKey(s.IndexNow.Key))
	body, err := c.get(loc)
	switch {
	case err != nil:
		c.fail("IndexNow key file %s: %v — %s", loc, err, fix)
	case strings.TrimSpace(body) != s.IndexNow.Key:
		c.fail("IndexNow key file %s serves %d bytes that are not the key — %s", loc, len(body), fix)
	default:
		c.pass("IndexNow key file %s serves the key", loc)
	}
	if u, err := url.Parse(loc); err == nil {
		if dir := u.Path[:strings.LastIndex(u.Path, "/")+1]; dir != "/" {
			c.warn("IndexNow keyLocation is not at the site root: engines accept it only for URLs under %s://%s%s", u.Scheme, u.Host, dir)
		}
	}
}

// get fetches a small public file.
func (c *checker) get(u string) (string, error) {
	ctx, cancel := context.WithTimeout(c.e.ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	resp, err := c.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return string(body), nil
}

// bing asks Bing for the site's quota, which proves the API key, and tells today's allowance.
func (c *checker) bing(s *config.Site) {
	now := time.Now()
	ch := bing.New(s, c.client, c.cfg.UserAgent, c.st, now)
	daily, monthly, err := ch.Quota(c.e.ctx)
	switch {
	case errors.Is(err, bing.ErrInvalidKey):
		c.fail("Bing: %v", err)
		return
	case err != nil && !errors.Is(err, bing.ErrQuotaUnknown):
		c.fail("Bing at %s: %v — check bing.endpoint and the network", s.Bing.Endpoint, err)
		return
	}
	used, full, uerr := c.st.QuotaUsed(c.e.ctx, s.ID, now.UTC().Format(time.DateOnly))
	if uerr != nil {
		c.fail("Bing quota in the state: %v", uerr)
		return
	}
	if err != nil {
		c.pass("Bing answered, but does not tell the quota left today: runs count on bing.dailyQuota (%s URLs, %d used today)",
			count(s.Bing.DailyQuota), used)
		return
	}
	left := bing.Quota{Daily: s.Bing.DailyQuota, Used: used, Full: full, BingLeft: daily, Told: true}.Left()
	c.pass("Bing API key accepted: %s URLs left today (%d of %d configured used; Bing reports %s today, %s this month)",
		count(left), used, s.Bing.DailyQuota, count(daily), count(monthly))
}
