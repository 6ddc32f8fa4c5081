package kvstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"
)

// Options bound a State.
type Options struct {
	// Ops is how many KV operations one invocation may make (Workers allows 1,000); 0 means
	// DefaultOps. When four fifths are made, Spent is told, once: the runs stop as at the end of
	// their runBudget, and the rest is left for writing what they did.
	Ops int
	// Spent, when set, is told that the operations are nearly spent.
	Spent func()
	// Entries bounds the catalogue entries held in memory, whatever the sites' size: past it, the
	// shards of the other sites used longest ago are written if they changed and dropped, and a
	// site whose catalogue alone is larger is refused (ErrTooBig). 0 means DefaultEntries.
	Entries int
	// Warn, when set, is told what the State worked around: a damaged value it could do
	// without (a memo, the history of runs), dropped.
	Warn func(msg string)
	// Now is the invocation's clock (a Cron Trigger's scheduled time), by which the State tells
	// how old the memos it reads are; nil means time.Now. Memos are stamped with the later of it
	// and the wall clock, so that a tick that ran late does not date them early.
	Now func() time.Time
}

// Bounds of an invocation. DefaultEntries keeps a Worker's memory within half its isolate's
// 128 MB: a run of 100,000 entries holds about 40 MB of Go's heap at its peak, 54–62 MB of
// WebAssembly memory under the Worker's memory limit (cmd/sitepush-worker).
const (
	DefaultOps     = 1000
	DefaultEntries = 100_000
)

// ErrTooBig is a site whose catalogue is larger than the State holds in memory.
var ErrTooBig = errors.New("too many URLs")

// State is the state of every site in a KV namespace, for one invocation — a Cron tick, a
// request: it reads what it needs once, keeps in memory what runs change, and writes it when a
// run finishes and at Flush. It is safe for concurrent use.
type State struct {
	kv  KV
	opt Options

	mu      sync.Mutex
	ops     Ops
	told    bool
	sites   map[string]*site
	sched   *schedule        // ScheduleKey, once read
	held    map[string]lease // the leases this invocation holds, by site
	entries int              // catalogue entries held, in every site's shards
	syncs   uint64           // SyncCatalog calls so far
	clock   uint64           // ticks of shard use, for dropping the longest unused
}

// New returns a State over kv.
func New(kv KV, opt Options) *State {
	if opt.Ops <= 0 {
		opt.Ops = DefaultOps
	}
	if opt.Entries <= 0 {
		opt.Entries = DefaultEntries
	}
	return &State{kv: kv, opt: opt, sites: map[string]*site{}}
}

func (s *State) now() time.Time {
	if s.opt.Now != nil {
		return s.opt.Now()
	}
	return time.Now()
}

// Ops returns the KV operations made so far.
func (s *State) Ops() Ops {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ops
}

// site is what the State holds of one site.
type site struct {
	id     string
	meta   *meta
	shards [1 << shardBits]*shard // those read
	stats  map[string]*dayStats   // by UTC day
	feed   *feedState
	quota  map[string]*quotaDay // by UTC day
	runs   *runList
	memos  *memoSet
	left   *leftSet
	run    *runStart // the run of the site this invocation started, until it finishes
	// listed is the metadata of each shard listed (its summary), by number, when a run listed
	// them (PendingDeliveries): a shard read after is checked against it (checkSummary).
	listed map[int]string
}

// holdsChanges reports whether the invocation changed what the site holds besides its history of
// runs: its catalogue, memos, URLs that left the sitemaps, statistics, Bing quota or feed.
func (st *site) holdsChanges() bool {
	for _, sh := range st.shards {
		if sh != nil && sh.dirty {
			return true
		}
	}
	for _, d := range st.stats {
		if d.dirty {
			return true
		}
	}
	for _, q := range st.quota {
		if q.dirty {
			return true
		}
	}
	return st.memos != nil && st.memos.dirty || st.left != nil && st.left.dirty || st.feed != nil && st.feed.dirty
}

// siteOf returns the State's record of a site; s.mu is held.
func (s *State) siteOf(id string) *site {
	st := s.sites[id]
	if st == nil {
		st = &site{id: id, stats: map[string]*dayStats{}, quota: map[string]*quotaDay{}}
		s.sites[id] = st
	}
	return st
}

// forget drops what the State read of a site and did not change, so that it is read again: a
// run taking the site's lease must see what runs before it wrote; s.mu is held.
func (s *State) forget(st *site) {
	if st.meta != nil && !st.meta.dirty {
		st.meta = nil
	}
	if st.runs != nil && !st.runs.dirty {
		st.runs = nil
	}
	if st.feed != nil && !st.feed.dirty {
		st.feed = nil
	}
	if st.memos != nil && !st.memos.dirty {
		st.memos = nil
	}
	if st.left != nil && !st.left.dirty {
		st.left = nil
	}
	st.listed = nil
	for k, sh := range st.shards {
		if sh != nil && !sh.dirty {
			s.entries -= len(sh.entries)
			st.shards[k] = nil
		}
	}
	for day, d := range st.stats {
		if !d.dirty {
			delete(st.stats, day)
		}
	}
	for day, q := range st.quota {
		if !q.dirty {
			delete(st.quota, day)
		}
	}
}

// discard drops what the State holds of a site, what it changed included, unwritten: another
// run holds the site; s.mu is held.
func (s *State) discard(st *site) {
	for _, sh := range st.shards {
		if sh != nil {
			s.entries -= len(sh.entries)
		}
	}
	delete(s.sites, st.id)
}

// ErrOpsSpent is returned for an operation past the invocation's budget.
var ErrOpsSpent = errors.New("the KV operations of this invocation are spent")

// count counts an operation, tells Spent when four fifths are made, and refuses one past the
// budget; s.mu is held.
func (s *State) count(add func(*Ops)) error {
	if s.ops.Total() >= s.opt.Ops {
		return fmt.Errorf("%w (%d): the rest is left for the next invocation", ErrOpsSpent, s.opt.Ops)
	}
	add(&s.ops)
	if !s.told && s.ops.Total() >= s.opt.Ops*4/5 && s.opt.Spent != nil {
		s.told = true
		go s.opt.Spent()
	}
	return nil
}

// get reads a key; s.mu is held.
func (s *State) get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := s.count(func(o *Ops) { o.Reads++ }); err != nil {
		return nil, false, err
	}
	return s.kv.Get(ctx, key)
}

// getJSON reads a JSON value into v; ok is false when there is none.
func (s *State) getJSON(ctx context.Context, key string, v any) (bool, error) {
	b, ok, err := s.get(ctx, key)
	if err != nil || !ok {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("the value of %s is %w (%v)", key, errNotOurs, err)
	}
	return true, nil
}

// errNotOurs is a value that does not decode as what this sitepush writes: damaged, or written
// by something else.
var errNotOurs = errors.New("not what this sitepush writes")

// getOrDrop reads a JSON value into v as getJSON does, but one that does not decode is dropped:
// taken as none, with a warning that says what its loss costs, so that it is written over. For
// the values a site can do without; s.mu is held.
func (s *State) getOrDrop(ctx context.Context, key string, v any, costs string) (bool, error) {
	ok, _, err := s.getOrDropped(ctx, key, v, costs)
	return ok, err
}

// getOrDropped is getOrDrop that also reports whether the value was dropped: for a value that
// is not written over unless the State rewrites it itself; s.mu is held.
func (s *State) getOrDropped(ctx context.Context, key string, v any, costs string) (ok, dropped bool, err error) {
	ok, err = s.getJSON(ctx, key, v)
	if !errors.Is(err, errNotOurs) {
		return ok, false, err
	}
	reflect.ValueOf(v).Elem().SetZero()
	s.warn(fmt.Sprintf("%v: dropped; %s", err, costs))
	return false, true, nil
}

// warn tells Options.Warn, when set, what went wrong but did not stop anything.
func (s *State) warn(msg string) {
	if s.opt.Warn != nil {
		s.opt.Warn(msg)
	}
}

// put writes a key, with metadata when it is not empty; s.mu is held.
func (s *State) put(ctx context.Context, key string, value []byte, ttl time.Duration, metadata string) error {
	if err := s.count(func(o *Ops) { o.Writes++ }); err != nil {
		return err
	}
	return s.kv.Put(ctx, key, value, ttl, metadata)
}

// putJSON writes v as JSON.
func (s *State) putJSON(ctx context.Context, key string, v any, ttl time.Duration) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.put(ctx, key, b, ttl, "")
}

// del deletes a key; s.mu is held.
func (s *State) del(ctx context.Context, key string) error {
	if err := s.count(func(o *Ops) { o.Deletes++ }); err != nil {
		return err
	}
	return s.kv.Delete(ctx, key)
}

// failed names what the state was doing, and for which site, in an error that reaches a user, as
// the SQL store does: `kv: recording an outcome of site "blog": …`.
func failed(err *error, doing, site string) {
	if *err == nil {
		return
	}
	if site != "" {
		doing += fmt.Sprintf(" of site %q", site)
	}
	*err = fmt.Errorf("kv: %s: %w", doing, *err)
}

// Ping checks that the namespace answers a read.
func (s *State) Ping(ctx context.Context) (err error) {
	defer failed(&err, "reading the namespace", "")
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, err = s.get(ctx, "sitepush:ping")
	return err
}

// Flush writes what the invocation changed and has not written yet: what runs left (a run
// writes what it did when it finishes), the start of a run that has not finished, what requests
// changed, and the schedule.
func (s *State) Flush(ctx context.Context) (err error) {
	defer failed(&err, "writing the state", "")
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, st := range s.sites {
		if st.run != nil && !st.run.begun {
			errs = append(errs, s.begin(ctx, st, st.run))
		}
		errs = append(errs, s.flushSite(ctx, st))
	}
	errs = append(errs, s.writeSchedule(ctx))
	return errors.Join(errs...)
}

// flushSite writes what changed of one site; s.mu is held.
func (s *State) flushSite(ctx context.Context, st *site) error {
	var errs []error
	for _, sh := range st.shards {
		if sh != nil {
			errs = append(errs, s.writeShard(ctx, st, sh))
		}
	}
	// The memos speak for the deliveries of their pages, and no longer list the URLs that left
	// the sitemaps: written only once those are.
	errs = append(errs, s.writeLeft(ctx, st))
	if errors.Join(errs...) == nil {
		errs = append(errs, s.writeMemos(ctx, st))
	}
	for day, d := range st.stats {
		errs = append(errs, s.writeStats(ctx, st, day, d))
	}
	for day, q := range st.quota {
		errs = append(errs, s.writeQuota(ctx, st, day, q, true))
	}
	errs = append(errs, s.writeFeed(ctx, st), s.writeRuns(ctx, st), s.writeMeta(ctx, st))
	return errors.Join(errs...)
}
