// Package sites is the list of sites sitepush serves: those of the configuration file, which
// only the file changes, and those created through the admin API, kept in the store as the JSON
// their authors gave and read over the file's defaults each time they are loaded.
package sites

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
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
	files  map[string]int // the index in cfg.Sites of each site of the file, by its id in lower case

	// OnChange, when set, is called with the ids of the API sites that a change or a Load found
	// created, replaced or deleted, once the registry shows them; a Load that finds nothing new
	// calls nothing. Changes are told in the order they were made: it must not call Load or make
	// a change itself. Set it before the registry is used.
	OnChange func(ids []string)

	// changing makes the loads and changes of this process one after the other: an older read
	// never replaces a newer one, and a change reads the site once and stores its new version
	// only if it is still the one it read (the store checks that against other instances too).
	// The maps below are written under both changing and mu.
	changing sync.Mutex
	mu       sync.RWMutex
	api      map[string]Entry
	raw      map[string]store.StoredSite // each API site as stored, also those that do not load
	invalid  map[string]string           // API sites that do not load: the message last logged
	lower    map[string]string           // the id of each stored API site, by its id in lower case
	// all and sites are what All and Sites answer, in All's order, nil until a read needs them.
	// Once answered (shared), they never change: the next change copies them first.
	all    []Entry
	sites  []*config.Site
	shared atomic.Bool
}

// New returns the registry of cfg's sites and those in the store; Load reads the latter.
func New(cfg *config.Config, st *store.Store, logger *slog.Logger) *Registry {
	files := make(map[string]int, len(cfg.Sites))
	for i := range cfg.Sites {
		if _, ok := files[strings.ToLower(cfg.Sites[i].ID)]; !ok {
			files[strings.ToLower(cfg.Sites[i].ID)] = i
		}
	}
	return &Registry{cfg: cfg, store: st, logger: logger, files: files, api: map[string]Entry{}, raw: map[string]store.StoredSite{},
		invalid: map[string]string{}, lower: map[string]string{}}
}

// fileSite returns the file's site whose id is id regardless of case.
func (r *Registry) fileSite(id string) (*config.Site, bool) {
	i, ok := r.files[strings.ToLower(id)]
	if !ok {
		return nil, false
	}
	return &r.cfg.Sites[i], true
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
	stored, ok := r.lower[strings.ToLower(id)]
	if !ok {
		return Entry{}, false
	}
	e, ok := r.api[stored]
	return e, ok
}

// stored returns the id of the stored API site whose id is id regardless of case, loading or not.
func (r *Registry) stored(id string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	stored, ok := r.lower[strings.ToLower(id)]
	return stored, ok
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
	at := time.UnixMilli(now.UnixMilli()).UTC() // as the store keeps it
	return r.changed(store.StoredSite{ID: site.ID, Config: bytes.Clone(body), CreatedAt: at, UpdatedAt: at}, site), nil
}

// Replace validates and stores a new version of the API site id. Keys given back masked, as the
// API shows them, and values equal to what the site inherits or derives, stay as they were.
func (r *Registry) Replace(ctx context.Context, id string, body []byte, now time.Time) (Entry, error) {
	r.changing.Lock()
	defer r.changing.Unlock()
	if fs, ok := r.fileSite(id); ok {
		return Entry{}, r.fileSiteChange(fs, body)
	}
	storedID, ok := r.stored(id)
	if !ok {
		return Entry{}, errorOf(ErrNotFound, "no site %q; create it with POST /api/sites", id)
	}
	id = storedID
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
	version, err := r.store.ReplaceSite(ctx, id, body, now, stored.UpdatedAt)
	switch {
	case errors.Is(err, store.ErrNoSite):
		r.drop(id)
		r.told([]string{id})
		return Entry{}, errorOf(ErrNotFound, "no site %q; it was deleted meanwhile", id)
	case errors.Is(err, store.ErrSiteChanged):
		r.load(ctx)
		return Entry{}, errorOf(ErrChanged, "site %q was changed meanwhile, by another request or instance: GET it again, "+
			"and make your change to what it is now", id)
	case err != nil:
		return Entry{}, err
	}
	return r.changed(store.StoredSite{ID: id, Config: body, CreatedAt: stored.CreatedAt, UpdatedAt: version}, site), nil
}

// Delete deletes the API site id. What its runs recorded stays in the state.
func (r *Registry) Delete(ctx context.Context, id string) error {
	r.changing.Lock()
	defer r.changing.Unlock()
	if _, ok := r.fileSite(id); ok {
		return fileSiteError(id)
	}
	storedID, ok := r.stored(id)
	if !ok {
		return errorOf(ErrNotFound, "no site %q", id)
	}
	id = storedID
	err := r.store.DeleteSite(ctx, id)
	if err != nil && !errors.Is(err, store.ErrNoSite) {
		return err
	}
	r.drop(id)
	r.told([]string{id})
	if err != nil {
		return errorOf(ErrNotFound, "no site %q", id)
	}
	return nil
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
	if site.Changes.Dir != "" {
		return nil, errorOf(ErrInvalid, "site %q: changes.dir cannot be set through the API, as it reads files of the server: the pages of a site "+
			"created through the API are fetched (declare the site in the configuration file to read its built pages from a directory)", site.ID)
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

// changed holds the site a change just stored, st, which loads as site, and tells OnChange: a
// change touches its own site, whatever the number of others. r.changing is locked.
func (r *Registry) changed(st store.StoredSite, site *config.Site) Entry {
	r.put(st, site, "")
	r.told([]string{st.ID})
	return Entry{Site: site, Source: FromAPI, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt}
}

func existsError(id, other string) error {
	if id == other {
		return errorOf(ErrExists, "a site %q exists; change it with PUT /api/sites/%s", id, id)
	}
	return errorOf(ErrExists, "a site %q exists, and ids that differ only by case are the same (they appear in URLs and file names); choose another id", other)
}

// fileSiteChange answers a PUT of a site of the file: what the body asks of where a secret goes
// is refused first (400), as for any site, and a client learns the rule it broke rather than
// only that the site is the file's; otherwise the site is the file's to change (409). The body
// is read over the file's site, all of which counts as its own, so keys given back masked are its.
func (r *Registry) fileSiteChange(fs *config.Site, body []byte) error {
	b, _ := json.Marshal(fs)
	if merged, err := given(fs.ID, body, b, fs); err == nil {
		if site, err := r.cfg.ParseSite(merged); err == nil {
			if err := r.keepSecretsHome(asGiven(body), site, fs); err != nil {
				return err
			}
		}
	}
	return fileSiteError(fs.ID)
}

func fileSiteError(id string) error {
	return errorOf(ErrFileSite, "site %q is declared in the configuration file; change it there and restart sitepush serve", id)
}
