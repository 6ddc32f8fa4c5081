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
}

func leaseKey(site string) string { return "lease:" + site }

// minLease is how long a lease lasts at least: KV keeps nothing for less than a minute, and a
// write per renewal would spend the day's writes; a lease is written again only when less than
// half of this is left.
const minLease = 2 * MinTTL

// AcquireLease takes site's lease for holder, unless another holder's is still valid: then it
// returns a *model.LeaseHeld that says who holds it and until when. KV has no atomic operation:
// the lease is written, then read back to confirm it is holder's. Two invocations taking it
// within KV's propagation delay (up to a minute between locations) may both believe they hold
// it; then a URL may be sent twice, never lost.
func (s *State) AcquireLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (model.Lease, error) {
	if err := s.takeLease(ctx, site, holder, now, ttl); err != nil {
		return nil, err
	}
	return &heldLease{s: s, site: site, holder: holder}, nil
}

// takeLease takes site's lease for holder as AcquireLease does; its error is a *model.LeaseHeld
// when another holder has it.
func (s *State) takeLease(ctx context.Context, site, holder string, now time.Time, ttl time.Duration) (err error) {
	defer failed(&err, "taking the lease", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	var l lease
	ok, err := s.getOrDrop(ctx, leaseKey(site), &l, "the site's lease is taken as free")
	if err != nil {
		return err
	}
	if ok && l.Expires > now.UnixMilli() {
		// Even its holder cannot take a lease twice: a holder is one run.
		return &model.LeaseHeld{Holder: l.Holder, Until: fromMS(l.Expires)}
	}
	mine := lease{Holder: holder, Expires: now.Add(max(ttl, minLease)).UnixMilli()}
	if err := s.putJSON(ctx, leaseKey(site), mine, max(ttl, minLease)); err != nil {
		return err
	}
	if ok, err := s.getOrDrop(ctx, leaseKey(site), &l, "the site's lease is taken as free"); err != nil {
		return err
	} else if ok && l.Holder != holder {
		return &model.LeaseHeld{Holder: l.Holder, Until: fromMS(l.Expires)}
	}
	s.forget(s.siteOf(site)) // what another holder wrote before is read again
	s.leases()[site] = mine
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
	if l, ok := s.leases()[site]; !ok || l.Holder != holder {
		return nil
	}
	delete(s.held, site)
	return s.del(ctx, leaseKey(site))
}

// Leased reports whether a run holds site's lease at now, in this invocation or another.
func (s *State) Leased(ctx context.Context, site string, now time.Time) (_ bool, err error) {
	defer failed(&err, "reading the lease", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	var l lease
	ok, err := s.getOrDrop(ctx, leaseKey(site), &l, "the site's lease is taken as free")
	return ok && l.Expires > now.UnixMilli(), err
}
