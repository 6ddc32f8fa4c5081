package scheduler

import (
	"container/heap"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/config"
)

// pool runs the scheduled runs of a server: the due sites wait in a queue, the oldest fire time
// first, and at most size workers take them, one run at a time each. A burst of thousands of due
// sites is so many small entries, not so many goroutines.
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

// job is one site's scheduled run: queued (index ≥ 0), running, or waiting to try again.
type job struct {
	site  *config.Site
	at    time.Time
	seq   uint64 // the order jobs of one fire time came in
	try   int
	index int
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

// spawn starts a worker when a job waits and a slot is free. The caller holds mu.
func (p *pool) spawn() {
	if p.stopped || p.held >= p.size || p.queue.Len() == 0 {
		return
	}
	p.held++
	p.wg.Go(p.work)
}

// work takes jobs while there are some, holding a slot, then leaves.
func (p *pool) work() {
	p.mu.Lock()
	for !p.stopped && p.queue.Len() > 0 {
		j := heap.Pop(&p.queue).(*job)
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
	again := p.run(j.site, j.at, j.try)
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

// queued returns how many runs wait for a worker.
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

// earlierJob orders the queue: by fire time, then by the order the jobs came in.
func earlierJob(a, b *job) bool {
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}

func (j *job) place(i int) { j.index = i }
