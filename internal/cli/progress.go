package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

const (
	// progressEvery is how often the progress line is redrawn at most as a run reports, and how
	// often it is redrawn anyway, for its clock and the countdown of a wait.
	progressEvery = 200 * time.Millisecond
	tickEvery     = time.Second
	// defaultWidth is the width of a terminal that does not tell its own.
	defaultWidth = 80
)

// progress redraws one line on a terminal while a run goes on — what was read, each channel's
// deliveries, the time elapsed and left, and the wait an engine asked for — and stays silent
// elsewhere. Its methods are safe for concurrent use.
type progress struct {
	w     io.Writer
	on    bool
	now   func() time.Time
	width int // the terminal's columns: the line is cut to fit, as a wrapped line cannot be redrawn
	stop  chan struct{}

	mu      sync.Mutex
	line    string    // the run's state as last reported; "" when there is no run to show
	started time.Time // when the run started
	done    int       // URLs sent, accepted or failed, as last reported
	due     int       // URLs still due, less those a quota held back, as last reported
	waits   map[string]engineWait
	drawn   time.Time // when the line was last drawn
	shown   bool
}

// engineWait is a wait an engine asked a channel for.
type engineWait struct {
	cause string
	until time.Time
}

// newProgress returns the progress line of a run on w, when w is a terminal and on; it redraws
// itself every second until close.
func newProgress(w io.Writer, on bool) *progress {
	on = on && isTerminal(w)
	p := newProgressLine(w, on, time.Now, terminalWidth(w))
	if on {
		go p.tick()
	}
	return p
}

// newProgressLine returns a progress line on w that is drawn when on, on a terminal of width
// columns, with now as its clock; it is redrawn only as the run reports.
func newProgressLine(w io.Writer, on bool, now func() time.Time, width int) *progress {
	if width <= 0 {
		width = defaultWidth
	}
	return &progress{w: w, on: on, now: now, width: width, stop: make(chan struct{}), waits: map[string]engineWait{}}
}

// close stops the redrawing.
func (p *progress) close() { close(p.stop) }

// tick redraws the line every tickEvery, for its clock and the countdown of a wait.
func (p *progress) tick() {
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// show takes the state of a run, and draws it at most every progressEvery.
func (p *progress) show(rec *model.Record) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line, p.started = p.state(rec), rec.StartedAt
	if p.now().Sub(p.drawn) >= progressEvery {
		p.draw()
	}
}

// wait shows the wait an engine asked channel for, as it starts (runner.Runner.OnWait).
func (p *progress) wait(_, channel, cause string, d time.Duration) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waits[channel] = engineWait{cause: cause, until: p.now().Add(d)}
	p.draw()
}

// clear removes the progress line before a summary is printed, and forgets the run.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		io.WriteString(p.w, "\r\033[K")
		p.shown = false
	}
	p.line = ""
	clear(p.waits)
}

// state takes the state of a run, and returns its line without the times and the waits:
// "blog: 2,502 URLs read · indexnow 1,000/5,000 · bing 0/100". It is called with p.mu held.
func (p *progress) state(rec *model.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s read", rec.Site, human.Count(rec.TotalURLs, "URL"))
	due, done, held := 0, 0, 0
	for _, n := range channelNames(rec) {
		st := rec.Channels[n]
		fmt.Fprintf(&b, " · %s %s/%s", n, human.Int(st.Answered()), human.Int(st.Due))
		due, done, held = due+st.Due, done+st.Answered(), held+st.Held
	}
	p.done, p.due = done, due-done-held
	return b.String()
}

// timeLeft is how long the deliveries still due take at the pace of those sent so far since
// the run started — and at least as long as the longest wait going on; 0 when nothing was sent
// yet, or nothing remains. It is called with p.mu held.
func (p *progress) timeLeft(now time.Time) time.Duration {
	elapsed := now.Sub(p.started)
	if p.done <= 0 || p.due <= 0 || elapsed <= 0 {
		return 0
	}
	left := time.Duration(float64(elapsed) * float64(p.due) / float64(p.done))
	for _, w := range p.waits {
		left = max(left, w.until.Sub(now))
	}
	return left
}

// draw writes the line, with the time elapsed and the waits going on, cut to the terminal's
// width. It is called with p.mu held.
func (p *progress) draw() {
	if p.line == "" {
		return
	}
	now := p.now()
	for ch, w := range p.waits {
		if !w.until.After(now) {
			delete(p.waits, ch)
		}
	}
	line := p.line
	if left := p.timeLeft(now).Round(time.Second); left > 0 {
		line += " · about " + left.String() + " left"
	}
	line += " · " + now.Sub(p.started).Round(time.Second).String() + " elapsed"
	for _, ch := range channelOrder(slices.Collect(maps.Keys(p.waits))) {
		w := p.waits[ch]
		line += fmt.Sprintf(" · %s: %s, waiting %s", ch, w.cause, seconds(w.until.Sub(now)))
	}
	io.WriteString(p.w, "\r\033[K"+clip(line, p.width-1))
	p.drawn, p.shown = now, true
}

// clip cuts s to n characters, ending it with "…" when it was longer: characters, not the bytes
// of human.Clip, as a terminal's width counts one column for "·" as for "a".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n || n < 1 {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
