// Package sites is the list of sites sitepush serves: those of the configuration file, which
// only the file changes, and those created through the admin API, kept in the store as the JSON
// their authors gave and read over the file's defaults each time they are loaded.
package sites

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/store"
)

// Sources of a site.
const (
	FromFile = "file"
	FromAPI  = "api"
)

// Kinds of errors of changes; the errors' messages say what to do, and are the loader's for a
// site that breaks a rule.
var (
	// ErrInvalid is a site that breaks a rule of the configuration.
	ErrInvalid = errors.New("invalid site")
	// ErrExists is a create whose id is taken, whatever its case.
	ErrExists = errors.New("site exists")
	// ErrFileSite is a change to a site of the configuration file.
	ErrFileSite = errors.New("site managed by the configuration file")
	// ErrNotFound is a site that does not exist.
	ErrNotFound = errors.New("no such site")
	// ErrChanged is a replacement of a site that another change overtook.
	ErrChanged = errors.New("site changed meanwhile")
)

// kindError is an error of a kind above whose message is its own.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorOf(kind error, format string, a ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, a...)}
}

// Entry is one site and where it comes from.
type Entry struct {
	Site      *config.Site
	Source    string
	CreatedAt time.Time // API sites only
	UpdatedAt time.Time
}

// Registry holds the sites. It is safe for concurrent use.
type Registry struct {
	cfg    *config.Config
	store  *store.Store
	logger *slog.Logger

	loading sync.Mutex // one Load at a time: an older read never replaces a newer one
	// changing makes the changes of this process one after the other: a change reads the site
	// once, and stores its new version only if it is still the one it read (the store checks
	// that against other instances too).
	changing sync.Mutex
	mu       sync.RWMutex
	api      map[string]Entry
	raw      map[string]store.StoredSite // each API site as stored, also those that do not load
	invalid  map[string]string           // API sites that do not load: the message last logged
}

// New returns the registry of cfg's sites and those in the store; Load reads the latter.
func New(cfg *config.Config, st *store.Store, logger *slog.Logger) *Registry {
	return &Registry{cfg: cfg, store: st, logger: logger, api: map[string]Entry{}, raw: map[string]store.StoredSite{}, invalid: map[string]string{}}
}

// Load reads the API sites from the store again — other instances may have changed them. A
// stored site that does not load (the file's defaults changed under it, or the file now declares
// a site with its id) is left out, with an error logged once.
func (r *Registry) Load(ctx context.Context) error {
	r.loading.Lock()
	defer r.loading.Unlock()
	stored, err := r.store.Sites(ctx)
	if err != nil {
		return err
	}
	api, raw, invalid := map[string]Entry{}, map[string]store.StoredSite{}, map[string]string{}
	for _, st := range stored {
		raw[st.ID] = st
		site, err := r.cfg.ParseSite(st.Config)
		switch {
		case err != nil:
			invalid[st.ID] = err.Error()
			continue
		case site.ID != st.ID:
			invalid[st.ID] = fmt.Sprintf("its configuration names it %q", site.ID)
			continue
		}
		if other, ok := r.fileSite(site.ID); ok {
			invalid[st.ID] = fmt.Sprintf("the configuration file declares site %q too; delete this one or rename the file's", other.ID)
			continue
		}
		api[site.ID] = Entry{Site: site, Source: FromAPI, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, msg := range invalid {
		if r.invalid[id] != msg {
			r.logger.Error("a site created through the API does not load and is not run; replace it with PUT /api/sites/"+id,
				"site", id, "err", msg)
		}
	}
	r.api, r.raw, r.invalid = api, raw, invalid
	return nil
}

// fileSite returns the file's site whose id is id regardless of case.
func (r *Registry) fileSite(id string) (*config.Site, bool) {
	for i := range r.cfg.Sites {
		if strings.EqualFold(r.cfg.Sites[i].ID, id) {
			return &r.cfg.Sites[i], true
		}
	}
	return nil, false
}

// All returns every site that loads: the file's in file order, then the API's by id.
func (r *Registry) All() []Entry {
	out := make([]Entry, 0, len(r.cfg.Sites)+len(r.api))
	for i := range r.cfg.Sites {
		out = append(out, Entry{Site: &r.cfg.Sites[i], Source: FromFile})
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	start := len(out)
	for _, e := range r.api {
		out = append(out, e)
	}
	api := out[start:]
	sort.Slice(api, func(i, j int) bool { return api[i].Site.ID < api[j].Site.ID })
	return out
}

// Sites returns every site that loads, for the scheduler.
func (r *Registry) Sites() []*config.Site {
	all := r.All()
	out := make([]*config.Site, len(all))
	for i, e := range all {
		out[i] = e.Site
	}
	return out
}

// Get returns the site with id, whatever its case: ids that differ only by case are one site.
func (r *Registry) Get(id string) (Entry, bool) {
	if s, ok := r.fileSite(id); ok {
		return Entry{Site: s, Source: FromFile}, true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e, ok := r.api[id]; ok {
		return e, true
	}
	for other, e := range r.api {
		if strings.EqualFold(other, id) {
			return e, true
		}
	}
	return Entry{}, false
}

// stored returns the id of the stored API site whose id is id regardless of case, loading or not.
func (r *Registry) stored(id string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if _, ok := r.raw[id]; ok {
		return id, true
	}
	for other := range r.raw {
		if strings.EqualFold(other, id) {
			return other, true
		}
	}
	return "", false
}

// Create validates and stores a new site given as JSON.
func (r *Registry) Create(ctx context.Context, body []byte, now time.Time) (Entry, error) {
	r.changing.Lock()
	defer r.changing.Unlock()
	site, err := r.parse(body)
	if err != nil {
		return Entry{}, err
	}
	if err := r.keepSecretsHome(asGiven(body), site, nil); err != nil {
		return Entry{}, err
	}
	if other, ok := r.fileSite(site.ID); ok {
		return Entry{}, existsError(site.ID, other.ID)
	}
	if other, ok := r.stored(site.ID); ok {
		return Entry{}, existsError(site.ID, other)
	}
	if err := nothingOn(site); err != nil {
		return Entry{}, err
	}
	if err := r.store.CreateSite(ctx, site.ID, body, now); errors.Is(err, store.ErrSiteExists) {
		return Entry{}, existsError(site.ID, site.ID) // created meanwhile by another instance
	} else if err != nil {
		return Entry{}, err
	}
	return r.reload(ctx, site.ID)
}

// Replace validates and stores a new version of the API site id. Keys given back masked, as the
// API shows them, and values equal to what the site inherits or derives, stay as they were.
func (r *Registry) Replace(ctx context.Context, id string, body []byte, now time.Time) (Entry, error) {
	r.changing.Lock()
	defer r.changing.Unlock()
	if _, ok := r.fileSite(id); ok {
		return Entry{}, fileSiteError(id)
	}
	id, ok := r.stored(id)
	if !ok {
		return Entry{}, errorOf(ErrNotFound, "no site %q; create it with POST /api/sites", id)
	}
	// The site as it is, read once: the keys given back masked are put back, and the rule of
	// where secrets go is checked, against the same version that the store must still hold.
	r.mu.RLock()
	stored, current := r.raw[id], r.api[id]
	r.mu.RUnlock()
	sent := asGiven(body)
	body, err := given(id, body, stored.Config, current.Site)
	if err != nil {
		return Entry{}, err
	}
	site, err := r.parse(body)
	if err == nil {
		err = nothingOn(site)
	}
	if err != nil {
		return Entry{}, err
	}
	if err := r.keepSecretsHome(sent, site, current.Site); err != nil {
		return Entry{}, err
	}
	switch _, err := r.store.ReplaceSite(ctx, id, body, now, stored.UpdatedAt); {
	case errors.Is(err, store.ErrNoSite):
		return Entry{}, errorOf(ErrNotFound, "no site %q; it was deleted meanwhile", id)
	case errors.Is(err, store.ErrSiteChanged):
		r.Load(ctx)
		return Entry{}, errorOf(ErrChanged, "site %q was changed meanwhile, by another request or instance: GET it again, "+
			"and make your change to what it is now", id)
	case err != nil:
		return Entry{}, err
	}
	return r.reload(ctx, site.ID)
}

// Delete deletes the API site id. What its runs recorded stays in the state.
func (r *Registry) Delete(ctx context.Context, id string) error {
	r.changing.Lock()
	defer r.changing.Unlock()
	if _, ok := r.fileSite(id); ok {
		return fileSiteError(id)
	}
	id, ok := r.stored(id)
	if !ok {
		return errorOf(ErrNotFound, "no site %q", id)
	}
	if err := r.store.DeleteSite(ctx, id); errors.Is(err, store.ErrNoSite) {
		return errorOf(ErrNotFound, "no site %q", id)
	} else if err != nil {
		return err
	}
	return r.Load(ctx)
}

// parse checks body as a site of the API: the loader's rules, and no file of the server named,
// read or written — those are the configuration file's to name.
func (r *Registry) parse(body []byte) (*config.Site, error) {
	site, err := r.cfg.ParseSite(body)
	if err != nil {
		return nil, &kindError{kind: ErrInvalid, msg: err.Error()}
	}
	for i, sm := range site.Sitemaps {
		if !strings.HasPrefix(sm, "http://") && !strings.HasPrefix(sm, "https://") {
			return nil, errorOf(ErrInvalid, "site %q: sitemaps[%d] must be an http(s) URL: a site created through the API cannot read files of the server "+
				"(declare it in the configuration file to read a local sitemap)", site.ID, i)
		}
	}
	if site.Feed.Out != "" {
		return nil, errorOf(ErrInvalid, "site %q: feed.out cannot be set through the API, as it writes a file on the server: readers find the feed at "+
			"/feeds/%s.xml (declare the site in the configuration file to write a file)", site.ID, site.ID)
	}
	return site, nil
}

// nothingOn refuses a site with no channel on (config.Site.NothingOn): it would run, and send
// nothing. A create checks it after the id, so that a taken id is told first.
func nothingOn(site *config.Site) error {
	if err := site.NothingOn(); err != nil {
		return &kindError{kind: ErrInvalid, msg: err.Error()}
	}
	return nil
}

// reload reads the sites again after a change and returns the changed one.
func (r *Registry) reload(ctx context.Context, id string) (Entry, error) {
	if err := r.Load(ctx); err != nil {
		return Entry{}, err
	}
	e, ok := r.Get(id)
	if !ok {
		return Entry{}, errorOf(ErrNotFound, "site %q was deleted meanwhile", id)
	}
	return e, nil
}

func existsError(id, other string) error {
	if id == other {
		return errorOf(ErrExists, "a site %q exists; change it with PUT /api/sites/%s", id, id)
	}
	return errorOf(ErrExists, "a site %q exists, and ids that differ only by case are the same (they appear in URLs and file names); choose another id", other)
}

func fileSiteError(id string) error {
	return errorOf(ErrFileSite, "site %q is declared in the configuration file; change it there and restart sitepush serve", id)
}
