package sites

import (
	"slices"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
)

// All returns every site that loads: the file's in file order, then the API's by id. The slice
// is shared by every caller until the sites change: read it, never change it.
func (r *Registry) All() []Entry {
	r.mu.RLock()
	all := r.all
	r.shared.Store(true) // under the read lock: list, under the write lock, sees it
	r.mu.RUnlock()
	if all != nil {
		return all
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.build()
	return r.all
}

// Sites returns every site that loads, for the scheduler, in All's order. The slice is shared
// like All's.
func (r *Registry) Sites() []*config.Site {
	r.mu.RLock()
	sites := r.sites
	r.shared.Store(true)
	r.mu.RUnlock()
	if sites != nil {
		return sites
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.build()
	return r.sites
}

// build makes the answers of All and Sites, sorting the API's sites, when they are nil; from
// then on, changes keep them in order one site at a time (list). r.mu is locked.
func (r *Registry) build() {
	if r.all == nil {
		all := make([]Entry, 0, len(r.cfg.Sites)+len(r.api))
		for i := range r.cfg.Sites {
			all = append(all, Entry{Site: &r.cfg.Sites[i], Source: FromFile})
		}
		for _, e := range r.api {
			all = append(all, e)
		}
		slices.SortFunc(all[len(r.cfg.Sites):], func(a, b Entry) int { return strings.Compare(a.Site.ID, b.Site.ID) })
		sites := make([]*config.Site, len(all))
		for i, e := range all {
			sites[i] = e.Site
		}
		r.all, r.sites = all, sites
	}
	r.shared.Store(true)
}

// list puts the API site id in the answers of All and Sites, as e, or takes it out when e.Site
// is nil: a binary search and a move of the sites after it, and a copy when the answers were
// shared. r.mu is locked.
func (r *Registry) list(id string, e Entry) {
	if r.all == nil {
		return // built at the next read
	}
	if r.shared.Load() {
		r.all = append(make([]Entry, 0, len(r.all)+len(r.all)/8+1), r.all...)
		r.sites = append(make([]*config.Site, 0, cap(r.all)), r.sites...)
		r.shared.Store(false)
	}
	files := len(r.cfg.Sites)
	i, found := slices.BinarySearchFunc(r.all[files:], id, func(e Entry, id string) int { return strings.Compare(e.Site.ID, id) })
	i += files
	switch {
	case e.Site != nil && found:
		r.all[i], r.sites[i] = e, e.Site
	case e.Site != nil:
		r.all, r.sites = slices.Insert(r.all, i, e), slices.Insert(r.sites, i, e.Site)
	case found:
		r.all, r.sites = slices.Delete(r.all, i, i+1), slices.Delete(r.sites, i, i+1)
	}
}
