package scheduler

import (
	"container/heap"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// pool runs the runs of a server, scheduled and triggered: they wait in a queue — the triggered
// runs first, in the order they came, then the due sites, the oldest fire time first — and at
// most size workers take them, one run at a time each. A burst of thousands of due sites, or of
// triggers, is so many small entries, not so many goroutines.
//
// A run still going after its turn gives its worker's slot up, so that a site whose hosts hang
// holds the others up one turn at most; at most size runs do so at once, so that runs that are
// long but not stuck (a big site's first run) cannot take the machine: at most twice size runs go
// together, and only while runs last longer than a turn.
type pool struct {
	size int
	turn time.Duration
	// run makes one try of a scheduled run of site for the fire time at; it reports whether the
	// site was busy and the run is to be tried again after busyWait, at most busyTries tries.
	run func(site *config.Site, at time.Time, try int) (again bool)

	mu      sync.Mutex
	stopped bool
	queue   heapOf[*job]
	pending map[string]*job // site id → its job: queued, waiting to try again, or running
	held    int             // workers holding a slot
	over    int             // runs past their turn, whose workers gave their slot up
	seq     uint64
	wg      sync.WaitGroup
}

// job is one site's run: queued (index ≥ 0), running, or waiting to try again.
type job struct {
	site  *config.Site
	at    time.Time
	seq   uint64 // the order jobs came in
	try   int
	index int
	// manual, when set, makes the job a triggered run, made once in place of the pool's run:
	// waited tells it whether it waited in the queue (its trigger was answered already).
	manual func(waited bool)
	waited bool
	// same, for a triggered run, says what it does ("run all"), for a trigger asking the same
	// again: "" never is the same (chosen URLs).
	same string
}

func newPool(size int, turn time.Duration, run func(*config.Site, time.Time, int) bool) *pool {
	return &pool{size: size, turn: turn, run: run, pending: map[string]*job{}, queue: heapOf[*job]{less: earlierJob}}
}

// add queues a run of site for the fire time at. A site already queued keeps one entry, at the
// older fire time; a site running, or waiting to try again, is not queued: that run stands for at.
func (p *pool) add(site *config.Site, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	if j, ok := p.pending[site.ID]; ok {
		if j.index >= 0 && at.Before(j.at) {
			j.at = at
			heap.Fix(&p.queue, j.index)
		}
		return
	}
	p.seq++
	j := &job{site: site, at: at, seq: p.seq, try: 1}
	p.pending[site.ID] = j
	heap.Push(&p.queue, j)
	p.spawn()
}

// triggered is what became of a trigger (pool.trigger).
type triggered int

const (
	startedNow  triggered = iota // a slot was free: the run starts now
	queuedNow                    // every slot is taken: the run waits in the queue, before the scheduled ones
	siteRunning                  // the site's run is going, or waits to be tried again: nothing is queued
	siteQueued                   // another triggered run of the site waits in the queue already: nothing more is queued
	poolStopped                  // the pool takes no more runs
)

// trigger makes run a triggered run of site: started now in a free slot, else queued before
// every scheduled run (after the triggered ones queued before it). A scheduled run of the site
// that waits in the queue gives its place to the trigger, whose run stands for its fire time, as
// any run started after that time does; the site is never queued twice: a trigger of a site whose
// triggered run waits, the same (same), is that run, queued — another is refused (siteQueued).
func (p *pool) trigger(site *config.Site, same string, run func(waited bool)) triggered {
	p.mu.Lock()
	defer p.mu.Unlock()
	j, ok := p.pending[site.ID]
	switch {
	case p.stopped:
		return poolStopped
	case ok && j.index < 0:
		return siteRunning
	case ok && j.manual != nil && same != "" && j.same == same:
		return queuedNow
	case ok && j.manual != nil:
		return siteQueued
	case ok:
		heap.Remove(&p.queue, j.index)
	default:
		j = &job{site: site, index: -1}
		p.pending[site.ID] = j
	}
	p.seq++
	j.manual, j.same, j.seq, j.try = run, same, p.seq, 1
	if p.held < p.size {
		p.held++
		p.wg.Go(func() { p.work(j) })
		return startedNow
	}
	j.waited = true
	heap.Push(&p.queue, j)
	return queuedNow
}

// spawn starts a worker when a job waits and a slot is free. The caller holds mu.
func (p *pool) spawn() {
	if p.stopped || p.held >= p.size || p.queue.Len() == 0 {
		return
	}
	p.held++
	p.wg.Go(func() { p.work(nil) })
}

// work runs first, when set — a triggered run given a free slot, which runs even if the pool
// stopped meanwhile, as its trigger waits for it — then takes jobs while there are some, holding
// a slot, then leaves.
func (p *pool) work(first *job) {
	p.mu.Lock()
	for j := first; j != nil || !p.stopped && p.queue.Len() > 0; j = nil {
		if j == nil {
			j = heap.Pop(&p.queue).(*job)
		}
		p.mu.Unlock()
		gaveUp := p.runInTurn(j)
		p.mu.Lock()
		if gaveUp {
			p.over--
			if p.held >= p.size {
				p.mu.Unlock()
				return // its slot went to another worker
			}
			p.held++ // back in a slot, for the jobs still queued
		}
	}
	p.held--
	p.mu.Unlock()
}

// runInTurn runs j and tells whether its turn ended first, giving the worker's slot up.
func (p *pool) runInTurn(j *job) (gaveUp bool) {
	var turn *time.Timer
	ended := false
	p.mu.Lock() // the timer's function reads turn and ended under mu
	turn = time.AfterFunc(p.turn, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch {
		case ended:
		case p.over >= p.size:
			turn.Reset(p.turn) // as many runs as slots are past their turn already: look again a turn later
		default:
			p.over++
			p.held--
			gaveUp = true
			p.spawn()
		}
	})
	p.mu.Unlock()
	again := false
	if j.manual != nil {
		j.manual(j.waited)
	} else {
		again = p.run(j.site, j.at, j.try)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ended = true
	turn.Stop()
	p.settle(j, again)
	return gaveUp
}

// settle ends j's run: done, or to be tried again after busyWait. The caller holds mu.
func (p *pool) settle(j *job, again bool) {
	if !again || p.stopped {
		delete(p.pending, j.site.ID)
		return
	}
	j.try++
	time.AfterFunc(busyWait, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.stopped {
			delete(p.pending, j.site.ID)
			return
		}
		heap.Push(&p.queue, j)
		p.spawn()
	})
}

// queued returns how many runs, scheduled and triggered, wait for a worker.
func (p *pool) queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.queue.Len()
}

// stop drops the queued runs and takes no more; the runs going end as the context they were
// given ends. wait waits for them.
func (p *pool) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	for _, j := range p.queue.items {
		delete(p.pending, j.site.ID)
	}
	p.queue.items = nil
}

func (p *pool) wait() { p.wg.Wait() }

// earlierJob orders the queue: the triggered runs first, then by fire time, then by the order
// the jobs came in.
func earlierJob(a, b *job) bool {
	if (a.manual != nil) != (b.manual != nil) {
		return a.manual != nil
	}
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}

func (j *job) place(i int) { j.index = i }
