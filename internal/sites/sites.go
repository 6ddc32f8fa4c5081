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

// Errors of changes, each with a message that says what to do.
var (
	// ErrInvalid wraps a site that breaks a rule of the configuration.
	ErrInvalid = errors.New("invalid site")
	// ErrExists is a create whose id is taken, whatever its case.
	ErrExists = errors.New("site exists")
	// ErrFileSite is a change to a site of the configuration file.
	ErrFileSite = errors.New("site managed by the configuration file")
	// ErrNotFound is a site that does not exist.
	ErrNotFound = errors.New("no such site")
)

// Entry is one site and where it comes from.
type Entry struct {
	Site      *config.Site
	Source    string
	CreatedAt time.Time // API sites only
	UpdatedAt time.Time
}

// Store is what the registry needs of the state.
type Store interface {
	Sites(ctx context.Context) ([]store.StoredSite, error)
	CreateSite(ctx context.Context, id string, config []byte, now time.Time) error
	ReplaceSite(ctx context.Context, id string, config []byte, now time.Time) error
	DeleteSite(ctx context.Context, id string) error
}

// Registry holds the sites. It is safe for concurrent use.
type Registry struct {
	cfg    *config.Config
	store  Store
	logger *slog.Logger

	mu      sync.RWMutex
	api     map[string]Entry
	raw     map[string][]byte // the stored JSON of each API site, also of those that no longer load
	invalid map[string]string // API sites that no longer load: the message last logged
}

// New returns the registry of cfg's sites and those in the store; Load reads the latter.
func New(cfg *config.Config, st Store, logger *slog.Logger) *Registry {
	return &Registry{cfg: cfg, store: st, logger: logger, api: map[string]Entry{}, raw: map[string][]byte{}, invalid: map[string]string{}}
}

// Load reads the API sites from the store again — other instances may have changed them. A
// stored site that no longer passes validation (the file's defaults changed under it) is left
// out, with an error logged once.
func (r *Registry) Load(ctx context.Context) error {
	stored, err := r.store.Sites(ctx)
	if err != nil {
		return err
	}
	api, raw, invalid := map[string]Entry{}, map[string][]byte{}, map[string]string{}
	for _, st := range stored {
		raw[st.ID] = st.Config
		site, err := r.cfg.ParseSite(st.Config)
		if err != nil {
			invalid[st.ID] = err.Error()
			continue
		}
		api[site.ID] = Entry{Site: site, Source: FromAPI, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, msg := range invalid {
		if r.invalid[id] != msg {
			r.logger.Error("a site created through the API no longer loads and is not run; replace it with PUT /api/sites/"+id,
				"site", id, "err", msg)
		}
	}
	r.api, r.raw, r.invalid = api, raw, invalid
	return nil
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

// Get returns the site with id.
func (r *Registry) Get(id string) (Entry, bool) {
	if s, ok := r.cfg.Site(id); ok {
		return Entry{Site: s, Source: FromFile}, true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.api[id]
	return e, ok
}

// taken returns the id of the site whose id equals id regardless of case, if any.
func (r *Registry) taken(id string) (string, bool) {
	for i := range r.cfg.Sites {
		if strings.EqualFold(r.cfg.Sites[i].ID, id) {
			return r.cfg.Sites[i].ID, true
		}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for other := range r.raw {
		if strings.EqualFold(other, id) {
			return other, true
		}
	}
	return "", false
}

// Create validates and stores a new site given as JSON.
func (r *Registry) Create(ctx context.Context, body []byte, now time.Time) (Entry, error) {
	site, err := r.parse(body)
	if err != nil {
		return Entry{}, err
	}
	if other, ok := r.taken(site.ID); ok {
		return Entry{}, existsError(site.ID, other)
	}
	if err := r.store.CreateSite(ctx, site.ID, body, now); errors.Is(err, store.ErrSiteExists) {
		return Entry{}, existsError(site.ID, site.ID) // created meanwhile by another instance
	} else if err != nil {
		return Entry{}, err
	}
	return r.reload(ctx, site.ID)
}

// Replace validates and stores a new version of the API site id. Keys given back masked, as the
// API shows them, stay as they were.
func (r *Registry) Replace(ctx context.Context, id string, body []byte, now time.Time) (Entry, error) {
	old, ok := r.Get(id)
	switch {
	case ok && old.Source == FromFile:
		return Entry{}, fileSiteError(id)
	case !ok && !r.stored(id):
		return Entry{}, fmt.Errorf("%w: no site %q; create it with POST /api/sites", ErrNotFound, id)
	}
	body, err := withID(body, id)
	if err != nil {
		return Entry{}, err
	}
	if body, err = r.unmask(id, body); err != nil {
		return Entry{}, err
	}
	site, err := r.parse(body)
	if err != nil {
		return Entry{}, err
	}
	if err := r.store.ReplaceSite(ctx, id, body, now); errors.Is(err, store.ErrNoSite) {
		return Entry{}, fmt.Errorf("%w: no site %q; it was deleted meanwhile", ErrNotFound, id)
	} else if err != nil {
		return Entry{}, err
	}
	return r.reload(ctx, site.ID)
}

// Delete deletes the API site id. What its runs recorded stays in the state.
func (r *Registry) Delete(ctx context.Context, id string) error {
	if _, ok := r.cfg.Site(id); ok {
		return fileSiteError(id)
	}
	if err := r.store.DeleteSite(ctx, id); errors.Is(err, store.ErrNoSite) {
		return fmt.Errorf("%w: no site %q", ErrNotFound, id)
	} else if err != nil {
		return err
	}
	return r.Load(ctx)
}

func (r *Registry) stored(id string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.raw[id]
	return ok
}

// parse checks body as a site.
func (r *Registry) parse(body []byte) (*config.Site, error) {
	site, err := r.cfg.ParseSite(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	for _, e := range r.All() {
		if e.Site.ID != site.ID && site.Feed.Enabled && e.Site.Feed.Enabled && site.Feed.Out != "" && site.Feed.Out == e.Site.Feed.Out {
			return nil, fmt.Errorf("%w: site %q: feed.out %q is also written by site %q; give each site its own file",
				ErrInvalid, site.ID, site.Feed.Out, e.Site.ID)
		}
	}
	return site, nil
}

// reload reads the sites again after a change and returns the changed one.
func (r *Registry) reload(ctx context.Context, id string) (Entry, error) {
	if err := r.Load(ctx); err != nil {
		return Entry{}, err
	}
	e, ok := r.Get(id)
	if !ok {
		return Entry{}, fmt.Errorf("%w: site %q was deleted meanwhile", ErrNotFound, id)
	}
	return e, nil
}

func existsError(id, other string) error {
	if id == other {
		return fmt.Errorf("%w: a site %q exists; change it with PUT /api/sites/%s", ErrExists, id, id)
	}
	return fmt.Errorf("%w: a site %q exists, and ids that differ only by case are the same (they appear in URLs and file names); choose another id",
		ErrExists, other)
}

func fileSiteError(id string) error {
	return fmt.Errorf("%w: site %q is declared in the configuration file; change it there and restart sitepush serve", ErrFileSite, id)
}
