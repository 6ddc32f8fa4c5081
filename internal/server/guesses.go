package server

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Bounds of guessing the admin token. A client address may send freeGuesses wrong tokens; after
// each further one it is refused — whatever token it sends — for a penalty that doubles from
// firstPenalty up to maxPenalty. An address without a wrong token for forgetGuesses starts
// afresh; the right token forgives nothing, or a guesser sharing an address with the admin (a
// NAT, a proxy) would get its free guesses back at each of the admin's requests. Refused
// attempts are not counted, so that an address is free again one penalty after its last wrong
// token: at most one guess a minute once an attacker has spent the free ones, however many
// connections it opens.
const (
	freeGuesses   = 5
	firstPenalty  = time.Second
	maxPenalty    = time.Minute
	forgetGuesses = time.Hour
	// maxGuessers bounds the addresses remembered; past it, the longest quiet ones are forgotten.
	maxGuessers = 10_000
)

// guesses counts wrong admin tokens per client address. It is safe for concurrent use.
type guesses struct {
	mu      sync.Mutex
	clients map[netip.Prefix]*guesser
}

// guesser is what is known of one address's wrong tokens.
type guesser struct {
	wrong int       // wrong tokens since it was last forgiven
	last  time.Time // the last wrong token
	until time.Time // refused until then
}

func newGuesses() *guesses { return &guesses{clients: map[netip.Prefix]*guesser{}} }

// clientOf is the address a request is counted against: the peer's IP, or for IPv6 its /64,
// which one host usually holds whole. Behind a reverse proxy every client is the proxy.
func clientOf(r *http.Request) netip.Prefix {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}

// refused returns how long client is still refused at now; 0 when it may try.
func (g *guesses) refused(client netip.Prefix, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.clients[client]; c != nil {
		return max(0, c.until.Sub(now))
	}
	return 0
}

// attempt takes one try of client at now. While a penalty lasts it is refused — wait says how
// long — and not judged; else right says whether the token is right, and a wrong one is counted
// (penalty is the penalty it starts, 0 while free guesses are left). Checking and counting are
// one step: tries at once cannot all pass before the first is counted.
func (g *guesses) attempt(client netip.Prefix, now time.Time, right func() bool) (ok bool, wait, penalty time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.clients[client]
	if c != nil && c.until.After(now) {
		return false, c.until.Sub(now), 0
	}
	if right() {
		return true, 0, 0
	}
	if c == nil || now.Sub(c.last) >= forgetGuesses {
		if c == nil && len(g.clients) >= maxGuessers {
			g.forgetQuietest(now)
		}
		c = &guesser{}
		g.clients[client] = c
	}
	c.wrong++
	c.last = now
	if c.wrong <= freeGuesses {
		return false, 0, 0
	}
	penalty = maxPenalty
	if n := c.wrong - freeGuesses - 1; n < 6 {
		penalty = min(firstPenalty<<n, maxPenalty)
	}
	c.until = now.Add(penalty)
	return false, 0, penalty
}

// forgetQuietest makes room: it drops every address forgotten by now, and when none is, the one
// quiet for longest. Called with mu held, when the table is full.
func (g *guesses) forgetQuietest(now time.Time) {
	var quietest netip.Prefix
	var since time.Time
	for p, c := range g.clients {
		if now.Sub(c.last) >= forgetGuesses {
			delete(g.clients, p)
			continue
		}
		if since.IsZero() || c.last.Before(since) {
			quietest, since = p, c.last
		}
	}
	if len(g.clients) >= maxGuessers {
		delete(g.clients, quietest)
	}
}
