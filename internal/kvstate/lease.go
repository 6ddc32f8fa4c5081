package kvstate

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// lease is the value of `lease:{id}`: who runs the site, until when.
type lease struct {
	Holder  string `json:"holder"`
	Expires int64  `json:"expires"` // Unix ms

	written bool // in KV: the run has had work (Working) or something to write
}

func leaseKey(site string) string { return "lease:" + site }

// minLease is how long a lease lasts at least: KV keeps nothing for less than a minute, and a
// write per renewal would spend the day's writes; a lease is written again only when less than
// half of this is left.
const minLease = 2 * MinTTL

// AcquireLease takes site's lease for holder, unless another holder's is still valid: then it
// returns a *model.LeaseHeld that says who holds it and until when. A run that finds nothing to
// do writes nothing, its lease neither: the lease is only read here, and written once the run has
// work (Working) or something to write (SaveRun), then read back to confirm it is holder's. KV
// has no atomic operation: two invocations taking it within KV's propagation delay (up to a
// minute between locations), or while one of them reads its sitemaps, may both believe they hold
// it; then a URL may be sent twice, never lost.
func (s *State) AcquireLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (_ model.Lease, err error) {
	defer failed(&err, "taking the lease", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	// Even its holder cannot take a lease twice: a holder is one run.
	if l, ok := s.leases()[site]; ok && l.Expires > now.UnixMilli() {
		return nil, &model.LeaseHeld{Holder: l.Holder, Until: fromMS(l.Expires)}
	}
	var l lease
	ok, err := s.getOrDrop(ctx, leaseKey(site), &l, "the site's lease is taken as free")
	if err != nil {
		return nil, err
	}
	if ok && l.Expires > now.UnixMilli() {
		return nil, &model.LeaseHeld{Holder: l.Holder, Until: fromMS(l.Expires)}
	}
	s.forget(s.siteOf(site)) // what another holder wrote before is read again
	s.leases()[site] = lease{Holder: holder, Expires: now.Add(max(ttl, minLease)).UnixMilli()}
	return &heldLease{s: s, site: site, holder: holder}, nil
}

// writeLease writes the lease this invocation holds of site, once, and reads it back: before a
// run of the site sends anything or writes what the site holds. Another run that wrote the
// site's lease since it was taken holds the site: its error is a *model.LeaseHeld. s.mu is held.
func (s *State) writeLease(ctx context.Context, site string) error {
	mine, ok := s.leases()[site]
	if !ok {
		return model.ErrLeaseLost
	}
	if mine.written {
		return nil
	}
	var l lease
	if ok, err := s.getOrDrop(ctx, leaseKey(site), &l, "the site's lease is taken as free"); err != nil {
		return err
	} else if ok && l.Holder != mine.Holder && l.Expires > s.now().UnixMilli() {
		delete(s.held, site)
		return &model.LeaseHeld{Holder: l.Holder, Until: fromMS(l.Expires)}
	}
	ttl := max(time.Duration(mine.Expires-s.now().UnixMilli())*time.Millisecond, minLease)
	if err := s.putJSON(ctx, leaseKey(site), mine, ttl); err != nil {
		return err
	}
	if ok, err := s.getOrDrop(ctx, leaseKey(site), &l, "the site's lease is taken as free"); err != nil {
		return err
	} else if ok && l.Holder != mine.Holder {
		delete(s.held, site)
		return &model.LeaseHeld{Holder: l.Holder, Until: fromMS(l.Expires)}
	}
	mine.written = true
	s.held[site] = mine
	return nil
}

// leases returns the leases this invocation holds; s.mu is held.
func (s *State) leases() map[string]lease {
	if s.held == nil {
		s.held = map[string]lease{}
	}
	return s.held
}

// heldLease is the model.Lease of the State: a lease this invocation took, which it keeps in
// State.held while it holds it.
type heldLease struct {
	s            *State
	site, holder string
}

// Renew extends the lease, writing it only when less than half of minLease is left.
func (h *heldLease) Renew(ctx context.Context, now time.Time, ttl time.Duration) error {
	return h.s.renewLease(ctx, h.site, h.holder, now, ttl)
}

// Release gives the lease up, if its holder still holds it.
func (h *heldLease) Release(ctx context.Context) error {
	return h.s.releaseLease(ctx, h.site, h.holder)
}

// renewLease extends holder's lease of site, as heldLease.Renew says.
func (s *State) renewLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (err error) {
	defer failed(&err, "renewing the lease", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.leases()[site]
	if !ok || l.Holder != holder {
		return model.ErrLeaseLost
	}
	if !l.written { // kept in memory until the run has work
		l.Expires = max(l.Expires, now.Add(max(ttl, minLease)).UnixMilli())
		s.held[site] = l
		return nil
	}
	if time.Duration(l.Expires-now.UnixMilli())*time.Millisecond > minLease/2 {
		return nil
	}
	var other lease
	if ok, err := s.getOrDrop(ctx, leaseKey(site), &other, "the site's lease is taken as free"); err != nil {
		return err
	} else if ok && other.Holder != holder {
		delete(s.held, site)
		return model.ErrLeaseLost
	}
	l.Expires = now.Add(max(ttl, minLease)).UnixMilli()
	s.held[site] = l
	return s.putJSON(ctx, leaseKey(site), l, max(ttl, minLease))
}

// releaseLease gives holder's lease of site up.
func (s *State) releaseLease(ctx context.Context, site, holder string) (err error) {
	defer failed(&err, "releasing the lease", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.leases()[site]
	if !ok || l.Holder != holder {
		return nil
	}
	delete(s.held, site)
	if !l.written {
		return nil
	}
	return s.del(ctx, leaseKey(site))
}

// Leased reports whether a run holds site's lease at now, in this invocation or another.
func (s *State) Leased(ctx context.Context, site string, now time.Time) (_ bool, err error) {
	defer failed(&err, "reading the lease", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.leases()[site]; ok && l.Expires > now.UnixMilli() {
		return true, nil
	}
	var l lease
	ok, err := s.getOrDrop(ctx, leaseKey(site), &l, "the site's lease is taken as free")
	return ok && l.Expires > now.UnixMilli(), err
}
