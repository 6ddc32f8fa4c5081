package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// Store is what Google keeps in the state: what URL Inspection said of each URL, and the
// inspections of each property per UTC day.
type Store interface {
	// URLsToInspect returns up to limit of site's URLs a channel sent before before and not
	// inspected since.
	URLsToInspect(ctx context.Context, site string, before time.Time, limit int) ([]model.ToInspect, error)
	RecordInspection(ctx context.Context, site string, hash int64, in model.Inspection) error
	// ReserveInspections takes up to n of property's inspections of day, never more than limit
	// in the day, across processes; ReleaseInspections gives back those not made.
	ReserveInspections(ctx context.Context, property, day string, n, limit int) (int, error)
	ReleaseInspections(ctx context.Context, property, day string, n int) error
}

// inspectEvery paces URL inspections: Google allows 600 a minute per property.
const inspectEvery = 100 * time.Millisecond

// Follower follows a site's runs up with Google (runner.Follower): it submits the sitemaps a
// run found changed and inspects the URLs earlier runs sent. It is made for one run.
type Follower struct {
	site   *config.Site
	client *http.Client
	st     Store
	now    func() time.Time
	api    *API
	// refused is why the API could not be made (the key file), reported once a run.
	refused  error
	reported bool
}

// New returns the follower of one run of site, its requests through client.
func New(site *config.Site, client *http.Client, st Store, now func() time.Time) *Follower {
	return &Follower{site: site, client: client, st: st, now: now}
}

// Name names Google in the record.
func (f *Follower) Name() string { return "google" }

// ready makes the API as the run begins to use it; false after an error told once.
func (f *Follower) ready(ctx context.Context) (bool, error) {
	if f.api == nil && f.refused == nil {
		f.api, f.refused = NewAPI(ctx, f.site.Google, f.client)
	}
	if f.refused != nil && !f.reported {
		f.reported = true
		return false, f.refused
	}
	return f.refused == nil, nil
}

// Sitemaps submits to Search Console each sitemap the run found new or changed, once.
func (f *Follower) Sitemaps(ctx context.Context, site *config.Site, changed []string) (string, error) {
	if !site.Google.Sitemaps {
		return "", nil
	}
	ok, err := f.ready(ctx)
	if !ok {
		return "", err
	}
	var done, local []string
	for _, sm := range changed {
		if u, perr := url.Parse(sm); perr != nil || u.Scheme != "http" && u.Scheme != "https" {
			local = append(local, sm)
			continue
		}
		if err := f.api.SubmitSitemap(ctx, sm); err != nil {
			return submitted(done, local), f.explain(fmt.Sprintf("Search Console did not take the sitemap %s", sm), err)
		}
		done = append(done, sm)
	}
	return submitted(done, local), nil
}

// submitted says what Sitemaps did.
func submitted(done, local []string) string {
	var parts []string
	if len(done) > 0 {
		parts = append(parts, fmt.Sprintf("submitted to Search Console: %s", strings.Join(done, ", ")))
	}
	if len(local) > 0 {
		parts = append(parts, fmt.Sprintf("not submitted, being files with no public URL: %s", strings.Join(local, ", ")))
	}
	return strings.Join(parts, "; ")
}

// Follow inspects the URLs the runs before start sent and that were not inspected since, within
// the property's inspections of the day, paced as Google allows, and keeps what Google said.
func (f *Follower) Follow(ctx context.Context, site *config.Site, start time.Time) (string, error) {
	g := site.Google
	if !g.Inspect || ctx.Err() != nil {
		return "", nil
	}
	todo, err := f.st.URLsToInspect(ctx, site.ID, start, g.InspectPerDay)
	if err != nil || len(todo) == 0 {
		return "", err
	}
	todo = inProperty(todo, g.Property)
	if ok, err := f.ready(ctx); !ok || len(todo) == 0 {
		return "", err
	}
	day := f.now().UTC().Format(time.DateOnly)
	granted, err := f.st.ReserveInspections(ctx, g.Property, day, len(todo), g.InspectPerDay)
	if err != nil {
		return "", err
	}
	if granted == 0 {
		return fmt.Sprintf("the %s of %s today are spent: %s left for tomorrow (UTC)", human.Count(g.InspectPerDay, "URL inspection"), g.Property, human.Count(len(todo), "URL")), nil
	}
	n, err := f.inspect(ctx, site.ID, todo[:granted])
	if n < granted {
		err = errors.Join(err, f.st.ReleaseInspections(context.WithoutCancel(ctx), g.Property, day, granted-n))
	}
	note := fmt.Sprintf("URL Inspection asked about %s sent", human.Count(n, "URL"))
	if left := len(todo) - n; left > 0 {
		note += fmt.Sprintf(", %d left for later runs", left)
	}
	return note, err
}

// inspect inspects each URL in turn until one fails or the run's budget ends, and returns how
// many were inspected.
func (f *Follower) inspect(ctx context.Context, site string, todo []model.ToInspect) (int, error) {
	tick := time.NewTicker(inspectEvery)
	defer tick.Stop()
	for i, u := range todo {
		if i > 0 {
			select {
			case <-ctx.Done():
				return i, nil
			case <-tick.C:
			}
		}
		in, err := f.api.Inspect(ctx, u.URL, f.now())
		if err != nil {
			if ctx.Err() != nil {
				return i, nil // the budget ended: the next run goes on
			}
			return i, f.explain("URL Inspection did not answer for "+u.URL, err)
		}
		if err := f.st.RecordInspection(context.WithoutCancel(ctx), site, u.Hash, in); err != nil {
			return i + 1, err
		}
	}
	return len(todo), nil
}

// explain says what failed and, when it refused the service account the property, what it lacks.
func (f *Follower) explain(what string, err error) error {
	if errors.Is(err, ErrForbidden) {
		return fmt.Errorf("%s (%v): %s", what, err, f.api.Forbidden())
	}
	return fmt.Errorf("%s: %w", what, err)
}

// inProperty keeps the URLs of the property: Google inspects no other.
func inProperty(todo []model.ToInspect, property string) []model.ToInspect {
	out := todo[:0]
	for _, t := range todo {
		if InProperty(t.URL, property) {
			out = append(out, t)
		}
	}
	return out
}

// InProperty reports whether u belongs to the Search Console property: a domain property
// (sc-domain:example.com) holds its host and subdomains, whatever the scheme; a URL-prefix
// property the URLs that start with it.
func InProperty(u, property string) bool {
	if d, ok := strings.CutPrefix(property, "sc-domain:"); ok {
		p, err := url.Parse(u)
		if err != nil {
			return false
		}
		h, d := strings.ToLower(p.Hostname()), strings.ToLower(d)
		return h == d || strings.HasSuffix(h, "."+d)
	}
	return strings.HasPrefix(u, property)
}
