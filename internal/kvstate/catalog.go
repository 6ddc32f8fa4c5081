package kvstate

import (
	"context"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// shardBits splits each site's catalogue in 1<<shardBits shards, by the top bits of the URLs'
// hashes: a daily run reads each once and writes those whose URLs changed or were delivered.
const shardBits = 4

// lastSeenEvery is how stale a URL's last-seen time may grow before a run that sees it again
// writes it: refreshing it on every run would rewrite every shard each time.
const lastSeenEvery = 24 * time.Hour

// entry is one URL of a site's catalogue, with what each channel did with it.
type entry struct {
	url                          string
	lastmod, firstSeen, lastSeen int64 // Unix ms; lastmod 0 when the sitemap gives none
	del                          []delivery
	synced                       uint64 // the State's SyncCatalog call that last saw it
	// checks is what content checks know of the page (checks.go); nil when nothing: an entry of a
	// site that never checks content costs a pointer more, not the fields.
	checks *pageChecks
}

// delivery is what one channel did with one URL.
type delivery struct {
	channel     string
	lastmod     int64 // the lastmod last delivered (Unix ms, 0 for none)
	deliveredAt int64 // when the channel last accepted the URL (0 when it never did)
	outcome     byte  // the last attempt's: outcomeOK, outcomeFailed, outcomeRejected, outcomeIneligible; or outcomeBacklog, outcomeBaseline
	attempts    int   // attempts since the last success, that one included
	lastAttempt int64
	lastError   string
	sent        uint64 // the page's content the channel last had (0: none recorded)
}

// of returns the entry's record of channel, nil when it has none.
func (e *entry) of(channel string) *delivery {
	for i := range e.del {
		if e.del[i].channel == channel {
			return &e.del[i]
		}
	}
	return nil
}

// shard is one value `cat:{id}:{n}` of a site's catalogue.
type shard struct {
	n       int
	entries map[int64]*entry
	dirty   bool
	used    uint64
}

func shardOf(hash int64) int { return int(uint64(hash) >> (64 - shardBits)) }

func shardKey(site string, n int) string { return fmt.Sprintf("%s%x", shardPrefix(site), n) }

// shardPrefix begins the keys of a site's shards (and of a site whose id continues it with a
// colon: a shard's number is what follows, in hex).
func shardPrefix(site string) string { return "cat:" + site + ":" }

// shardFor returns the shard of hash, read once, making room in memory first; s.mu is held.
func (s *State) shardFor(ctx context.Context, st *site, hash int64) (*shard, error) {
	return s.shardAt(ctx, st, shardOf(hash))
}

// shardAt returns shard n, read once, making room in memory first; s.mu is held.
func (s *State) shardAt(ctx context.Context, st *site, n int) (*shard, error) {
	s.clock++
	if sh := st.shards[n]; sh != nil {
		sh.used = s.clock
		return sh, nil
	}
	if err := s.makeRoom(ctx, st); err != nil {
		return nil, err
	}
	b, ok, err := s.get(ctx, shardKey(st.id, n))
	if err != nil {
		return nil, err
	}
	sh := &shard{n: n, entries: map[int64]*entry{}, used: s.clock}
	if ok {
		if sh.entries, err = decodeShard(b); err != nil {
			// The memos speak for pages the shard held: forgotten, so that once it is deleted
			// the next run looks every page up, and sends again those it held.
			st.memos = &memoSet{byName: map[string]model.SitemapMemo{}, dirty: true}
			return nil, damagedShard(shardKey(st.id, n), err)
		}
	}
	st.shards[n] = sh
	s.entries += len(sh.entries)
	if ok {
		st.checkSummary(sh)
	}
	return sh, nil
}

// damagedShard explains a shard that does not decode, and how to get the site going again: the
// site's runs fail until it is deleted, and deleting it loses no URL — its pages are found again
// in the sitemaps and taken as new: those it had delivered are sent once more, and so are those
// a first run's backlog setting had kept back.
func damagedShard(key string, err error) error {
	return fmt.Errorf("%s: %w; the site's runs stop here until it is deleted: npx wrangler kv key delete --binding STATE %q "+
		"(its URLs are then found again in the sitemaps and taken as new: those it had delivered, and those a first run's backlog kept back, "+
		"are sent once more; none is lost)", key, err, key)
}

// makeRoom drops the shards of other sites than current used longest ago, written first if they
// changed, until the entries held are within the bound; s.mu is held. A site whose catalogue
// alone outgrows the bound is refused: a run diffs the sitemaps against all of it, and
// dropping its shards to read them again would cost more operations than an invocation has.
func (s *State) makeRoom(ctx context.Context, current *site) error {
	for s.entries > s.opt.Entries {
		var oldest *shard
		var of *site
		for _, st := range s.sites {
			for _, sh := range st.shards {
				if st != current && sh != nil && (oldest == nil || sh.used < oldest.used) {
					oldest, of = sh, st
				}
			}
		}
		if oldest == nil {
			return fmt.Errorf("%w: more than %d, the most this state holds in memory at once (a Worker has 128 MB); "+
				"run the site with sitepush serve, or split its sitemaps among sites", ErrTooBig, s.opt.Entries)
		}
		if err := s.writeShard(ctx, of, oldest); err != nil {
			return err
		}
		s.entries -= len(oldest.entries)
		of.shards[oldest.n] = nil
	}
	return nil
}

// writeShard writes a shard when it changed, its summary as its metadata; s.mu is held. A
// listing of the site's shards kept (site.listed) says what a listing would say now.
func (s *State) writeShard(ctx context.Context, st *site, sh *shard) error {
	if !sh.dirty {
		return nil
	}
	sum := summarize(sh.entries).String()
	if err := s.put(ctx, shardKey(st.id, sh.n), encodeShard(sh.entries), 0, sum); err != nil {
		return err
	}
	if st.listed != nil {
		st.listed[sh.n] = sum
	}
	sh.dirty = false
	return nil
}

// SyncCatalog records pages present in site's sitemaps — new URLs, changed lastmods, the rotation
// of content checks (checks.go) — and returns each page's delivery state on each channel (that
// of pages[i] on channels[c] is at i*len(channels)+c), with the page's content and what the
// channel was sent. A page without its URL (one a run takes from a memo, not from a sitemap)
// is only looked up. With dryRun it only reads. Nothing is written before the run finishes.
func (s *State) SyncCatalog(ctx context.Context, site string, now time.Time, pages []channel.Page, channels []string, dryRun bool) (_ []model.DeliveryState, err error) {
	defer failed(&err, "syncing the catalogue", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	states := make([]model.DeliveryState, len(pages)*len(channels))
	s.syncs++ // the first page of a hash in the batch writes it
	checked := false
	for i, p := range pages {
		sh, err := s.shardFor(ctx, st, p.Hash)
		if err != nil {
			return nil, err
		}
		e := sh.entries[p.Hash]
		if e != nil {
			e.states(channels, states[i*len(channels):(i+1)*len(channels)])
		}
		if dryRun || p.URL == "" || e != nil && e.synced == s.syncs {
			continue
		}
		checked = checked || p.Check
		switch {
		case e == nil:
			e = &entry{url: p.URL, lastmod: ms(p.Lastmod), firstSeen: now.UnixMilli(), lastSeen: now.UnixMilli(), synced: s.syncs}
			e.rotate(p)
			sh.entries[p.Hash] = e
			s.entries++
		default:
			rotated := e.rotate(p) // before the lastmod it compares is written over
			if !rotated && e.url == p.URL && e.lastmod == ms(p.Lastmod) && now.UnixMilli()-e.lastSeen < lastSeenEvery.Milliseconds() {
				e.synced = s.syncs
				continue
			}
			e.url, e.lastmod, e.lastSeen, e.synced = p.URL, ms(p.Lastmod), now.UnixMilli(), s.syncs
		}
		sh.dirty = true
	}
	if checked {
		if err := s.noteRotation(ctx, st); err != nil {
			return nil, err
		}
	}
	return states, s.makeRoom(ctx, st)
}

// states fills out with the entry's state on each of channels: what its record of each says,
// the page's content, and what the channel was sent.
func (e *entry) states(channels []string, out []model.DeliveryState) {
	for c, name := range channels {
		d := e.of(name)
		out[c] = stateOf(d)
		if d != nil {
			out[c].Sent = d.sent
		}
		out[c].Content = e.content()
		out[c].Listed = fromMS(e.lastmod)
	}
}

// stateOf is what the runner's rules read of a channel's record of a URL.
func stateOf(d *delivery) model.DeliveryState {
	if d == nil {
		return model.DeliveryState{}
	}
	st := model.DeliveryState{Known: true, Lastmod: fromMS(d.lastmod), DeliveredAt: fromMS(d.deliveredAt), Failed: d.outcome == outcomeFailed,
		Ineligible: d.outcome == outcomeIneligible}
	if st.Unsent = unsentWord(d.outcome); st.Unsent != "" {
		st.TakenAt = fromMS(d.lastAttempt)
	}
	if st.Failed {
		st.Failures = d.attempts
	}
	if st.Ineligible {
		st.CheckedAt = fromMS(d.lastAttempt)
	}
	return st
}

// URLs returns the URL of each hash of site, aligned with hashes; "" for unknown hashes.
func (s *State) URLs(ctx context.Context, site string, hashes []int64) (_ []string, err error) {
	defer failed(&err, "reading URLs", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	out := make([]string, len(hashes))
	for i, h := range hashes {
		sh, err := s.shardFor(ctx, st, h)
		if err != nil {
			return nil, err
		}
		if e := sh.entries[h]; e != nil {
			out[i] = e.url
		}
	}
	return out, nil
}
