package sites

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/store"
)

// manyChanges is the number of changed sites from which a Load sorts the list of sites again
// rather than moving it for each site.
const manyChanges = 64

// Load reads again the API sites that changed in the store — other instances may have created,
// replaced or deleted them — and only those: the store's versions of every site are compared
// with those the registry holds, for equality, so that a change written by an instance whose
// clock is behind is read too. A stored site that does not load (the file's defaults changed
// under it, or the file now declares a site with its id) is left out, with an error logged once.
func (r *Registry) Load(ctx context.Context) error {
	r.changing.Lock()
	defer r.changing.Unlock()
	return r.load(ctx)
}

// load is Load; r.changing is locked.
func (r *Registry) load(ctx context.Context) error {
	versions, err := r.store.SiteVersions(ctx)
	if err != nil {
		return err
	}
	// Only this process's changes write the maps, and they wait for r.changing: no lock to read.
	var changed, gone []string
	for id, v := range versions {
		if held, ok := r.raw[id]; !ok || !held.CreatedAt.Equal(v.CreatedAt) || !held.UpdatedAt.Equal(v.UpdatedAt) {
			changed = append(changed, id)
		}
	}
	for id := range r.raw {
		if _, ok := versions[id]; !ok {
			gone = append(gone, id)
		}
	}
	if len(changed) == 0 && len(gone) == 0 {
		return nil
	}
	if len(changed)+len(gone) > manyChanges {
		r.mu.Lock()
		r.all, r.sites = nil, nil // sorted again at the next read, rather than moved for each site
		r.mu.Unlock()
	}
	for _, id := range gone {
		r.drop(id)
	}
	slices.Sort(changed)
	stored, err := r.store.SitesByID(ctx, changed)
	if err != nil {
		r.told(gone)
		return err
	}
	read := make(map[string]bool, len(stored))
	for _, st := range stored {
		read[st.ID] = true
		site, msg := r.loadSite(st)
		if msg != "" && r.invalid[st.ID] != msg {
			r.logger.Error("a site created through the API does not load and is not run; replace it with PUT /api/sites/"+st.ID,
				"site", st.ID, "err", msg)
		}
		r.put(st, site, msg)
	}
	for _, id := range changed {
		if !read[id] { // deleted since the versions were read
			r.drop(id)
		}
	}
	r.told(append(changed, gone...))
	return nil
}

// loadSite reads a stored site over the file's defaults: the site, or why it does not load.
func (r *Registry) loadSite(st store.StoredSite) (*config.Site, string) {
	site, err := r.cfg.ParseSite(st.Config)
	switch {
	case err != nil:
		return nil, err.Error()
	case site.ID != st.ID:
		return nil, fmt.Sprintf("its configuration names it %q", site.ID)
	}
	if other, ok := r.fileSite(site.ID); ok {
		return nil, fmt.Sprintf("the configuration file declares site %q too; delete this one or rename the file's", other.ID)
	}
	return site, ""
}

// put holds the stored site st, which loads as site or, when site is nil, does not for the
// reason invalid. r.changing is locked.
func (r *Registry) put(st store.StoredSite, site *config.Site, invalid string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw[st.ID] = st
	r.lower[strings.ToLower(st.ID)] = st.ID
	delete(r.api, st.ID)
	delete(r.invalid, st.ID)
	var e Entry
	if site != nil {
		e = Entry{Site: site, Source: FromAPI, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt}
		r.api[st.ID] = e
	} else {
		r.invalid[st.ID] = invalid
	}
	r.list(st.ID, e)
}

// drop forgets the stored site id, deleted. r.changing is locked.
func (r *Registry) drop(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.raw[id]; !ok {
		return
	}
	delete(r.raw, id)
	if r.lower[strings.ToLower(id)] == id { // not a site of another case that replaced it
		delete(r.lower, strings.ToLower(id))
	}
	delete(r.api, id)
	delete(r.invalid, id)
	r.list(id, Entry{})
}

// told tells OnChange that the sites ids changed. r.changing is locked, so that changes are told
// in their order.
func (r *Registry) told(ids []string) {
	if r.OnChange != nil && len(ids) > 0 {
		r.OnChange(ids)
	}
}
