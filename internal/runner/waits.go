package runner

import (
	"fmt"
	"time"
)

// waits is what a channel waited in a run because engines asked it to (channel.Reporter.Waiting):
// in all, and per cause.
type waits struct {
	all    span
	causes []*causeWaits // in the order first told
}

// causeWaits is the waits of one cause ("HTTP 429 from …").
type causeWaits struct {
	cause string
	span  span
	n     int
}

// add counts a wait of d for cause, starting at now.
func (w *waits) add(now time.Time, cause string, d time.Duration) {
	w.all.add(now, d)
	for _, c := range w.causes {
		if c.cause == cause {
			c.span.add(now, d)
			c.n++
			return
		}
	}
	c := &causeWaits{cause: cause, n: 1}
	c.span.add(now, d)
	w.causes = append(w.causes, c)
}

// end takes out what was not waited: the time past now of waits the end of the delivery cut.
func (w *waits) end(now time.Time) {
	w.all.cut(now)
	for _, c := range w.causes {
		c.span.cut(now)
	}
}

// String is the note of a cause: "HTTP 429 from https://…, waited 60 s (2 waits)".
func (c *causeWaits) String() string {
	s := fmt.Sprintf("%s, waited %s", c.cause, seconds(c.span.total))
	if c.n > 1 {
		s += fmt.Sprintf(" (%d waits)", c.n)
	}
	return s
}

// span is the time covered by waits that may overlap, each starting when it is told of: a wait
// counts only for the time it goes past the end of those before it.
type span struct {
	until time.Time // when the last wait ends
	total time.Duration
}

// add counts a wait of d starting at now.
func (s *span) add(now time.Time, d time.Duration) {
	end := now.Add(d)
	if !end.After(s.until) {
		return
	}
	start := now
	if s.until.After(now) {
		start = s.until
	}
	s.total += end.Sub(start)
	s.until = end
}

// cut takes out the time of the waits past now. Every wait started by now, so the time they
// cover past now is one stretch, from now to until.
func (s *span) cut(now time.Time) {
	if s.until.After(now) {
		s.total -= s.until.Sub(now)
		s.until = now
	}
}

// seconds writes a wait for a person, as engines ask for them: 250 ms, 60 s, 2m30s.
func seconds(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Round(time.Millisecond).Milliseconds())
	case d < 2*time.Minute:
		return fmt.Sprintf("%d s", int64(d.Round(time.Second)/time.Second))
	}
	return d.Round(time.Second).String()
}
