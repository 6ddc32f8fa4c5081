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
	"github.com/sitepush/sitepush/internal/human"
)

// keyFile fetches the IndexNow key file, which must hold exactly the key.
func (c *checker) keyFile(s *config.Site) {
	loc := s.IndexNow.KeyLocation
	fix := fmt.Sprintf("publish a file at %s whose content is exactly the key (%s)", loc, config.MaskKey(s.IndexNow.Key))
	body, err := c.get(loc)
	switch {
	case err != nil:
		c.fail("indexnow", "IndexNow key file %s: %v — %s", loc, err, fix)
	case strings.TrimSpace(body) != s.IndexNow.Key:
		c.fail("indexnow", "IndexNow key file %s serves %d bytes that are not the key — %s", loc, len(body), fix)
	default:
		c.pass("indexnow", "IndexNow key file %s serves the key", loc)
	}
	if u, err := url.Parse(loc); err == nil {
		if dir := u.Path[:strings.LastIndex(u.Path, "/")+1]; dir != "/" {
			c.warn("indexnow", "IndexNow keyLocation is not at the site root: engines accept it only for URLs under %s://%s%s", u.Scheme, u.Host, dir)
		}
	}
}

// endpoints makes one request to each IndexNow endpoint — a GET without URLs, which submits
// nothing — once for all the sites that share it: any HTTP answer means a run reaches it (an
// engine refuses a request without URLs, which is no failure here); no answer is what would fail
// a run's submissions there.
func (c *checker) endpoints(s *config.Site) {
	for _, ep := range s.IndexNow.Endpoints {
		r, ok := c.reached[ep]
		if !ok {
			r.status, _, r.err = c.fetch(ep, false)
			c.reached[ep] = r
		}
		if r.err != nil {
			c.fail("indexnow", "IndexNow endpoint %s: no answer (%v) — a run could not submit there: check indexnow.endpoints, and that this machine reaches it (a proxy, a firewall)", ep, r.err)
			continue
		}
		c.pass("indexnow", "IndexNow endpoint %s answers (HTTP %d to a request without URLs)", ep, r.status)
	}
}

// reach is what an endpoint answered check's request: its status, or why none came.
type reach struct {
	status int
	err    error
}

// get fetches a small public file, which must answer 200.
func (c *checker) get(u string) (string, error) {
	status, body, err := c.fetch(u, true)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d %s", status, http.StatusText(status))
	}
	return body, err
}

// fetch makes one GET of u within 30 s, following redirects when follow is set, and returns the
// answer's status and the first KiB of its body.
func (c *checker) fetch(u string, follow bool) (int, string, error) {
	ctx, cancel := context.WithTimeout(c.e.ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	client := *c.client
	if !follow {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	return resp.StatusCode, string(body), nil
}

// bing asks Bing for the site's quota, which proves the API key, and tells today's allowance.
func (c *checker) bing(s *config.Site) {
	now := time.Now()
	ch := bing.New(s, c.client, c.cfg.UserAgent, c.st, now)
	daily, monthly, err := ch.Quota(c.e.ctx)
	switch {
	case errors.Is(err, bing.ErrInvalidKey):
		c.fail("bing", "Bing: %v", err)
		return
	case err != nil && !errors.Is(err, bing.ErrQuotaUnknown):
		c.fail("bing", "Bing at %s: %v — check bing.endpoint and the network", s.Bing.Endpoint, err)
		return
	}
	if c.st == nil {
		c.fail("bing", "Bing answered, but today's use of the quota is in the state, which does not open (see above)")
		return
	}
	d, uerr := c.st.QuotaDay(c.e.ctx, s.ID, now.UTC().Format(time.DateOnly))
	if uerr != nil {
		c.fail("bing", "Bing quota in the state: %v", uerr)
		return
	}
	q := bing.Today(s, d)
	if err != nil {
		c.pass("bing", "Bing answered, but does not tell the quota left today: runs count on %s URLs left today (%s; %s used today)",
			human.Int(q.Left()), q.Source(), human.Int(d.Used))
		return
	}
	q = q.Answered(daily)
	c.pass("bing", "Bing API key accepted: %s URLs left today (%s; %s used today; Bing reports %s today, %s this month)",
		human.Int(q.Left()), q.Source(), human.Int(d.Used), human.Int(daily), human.Int(monthly))
}
