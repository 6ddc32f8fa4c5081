package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/changes"
	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// checkParallel is how many pages a run's content checks read at once: the preflight's figure,
// whatever reads them.
const checkParallel = 8

// maxCheckErrors is how many failed checks a run's note quotes.
const maxCheckErrors = 3

// byContent decides whether the changes of the file read so far are told by its pages' content
// (docs/runs.md, "What changed"): by the site's changes.detect, and under auto by the file's
// lastmods — trusted when they tell its pages apart (changes.Lastmods), or, when most share a
// stamp, when they do not move together: a sitemap whose known pages' lastmods moved one by one
// since they were last seen (some moved, most kept theirs) keeps its lastmods up to date page by
// page, whatever value many of them share; one where none moved says nothing new. It decides once a file, on the first piece of one too big to hold
// (takePiece), and says why in the record.
func (c *collector) byContent(ctx context.Context, f *file) (bool, error) {
	if f.decided || c.pages == nil { // a run that cannot read pages: lastmods decide
		return f.check, nil
	}
	f.decided = true
	var why string
	switch c.site.Changes.Detect {
	case config.DetectContent:
		f.check, why = true, "content: changes.detect is content"
	case config.DetectAuto:
		var l changes.Lastmods
		for _, p := range f.pages {
			l.Add(msTime(p.lastmod))
		}
		v := l.Verdict()
		f.check, why = !v.Trusted, v.String()
		if f.check && v.Dated*2 > v.URLs {
			moved, known, err := c.movement(ctx, f)
			switch {
			case err != nil:
				return false, err
			case moved > 0 && moved*2 <= known:
				f.check, why = false, fmt.Sprintf("lastmod: trusted, %s of %s known before moved their lastmod one by one (%s)", human.Int(moved), human.Count(known, "URL"), v)
			case moved > 0:
				why += fmt.Sprintf("; %s of %s known before moved together", human.Int(moved), human.Count(known, "URL"))
			}
		}
	default: // lastmod, or a site built without its defaults: lastmods decide
		return false, nil
	}
	if f.name != "" {
		c.verdicts[f.name] = why
	}
	c.contentRead = c.contentRead || f.check
	return f.check, nil
}

// movement counts the pages of f known before, and those of them whose lastmod moved since: as
// its memo remembers them, else (a site's first read, a memo dropped as damaged) as the catalogue
// last recorded them (DeliveryState.Listed, by a look-up that writes nothing).
func (c *collector) movement(ctx context.Context, f *file) (moved, known int, err error) {
	if n := len(f.old) / pageBytes; n > 0 {
		for _, p := range f.pages {
			i := sort.Search(n, func(i int) bool { return pageHash(f.old, i*pageBytes) >= p.hash })
			if i < n && pageHash(f.old, i*pageBytes) == p.hash {
				known++
				if pageLastmod(f.old, i*pageBytes) != p.lastmod {
					moved++
				}
			}
		}
		return moved, known, nil
	}
	if len(c.channels) == 0 {
		return 0, 0, nil
	}
	pages := make([]channel.Page, len(f.pages))
	for i, p := range f.pages {
		pages[i] = channel.Page{Hash: p.hash, Lastmod: msTime(p.lastmod)}
	}
	states, err := c.state.SyncCatalog(ctx, c.site.ID, c.now, pages, c.channels[:1], true)
	for i, st := range states {
		if !st.Listed.IsZero() {
			known++
			if !st.Listed.Equal(pages[i].Lastmod) {
				moved++
			}
		}
	}
	return moved, known, err
}

// msTime is a lastmod as pages keep it (Unix ms, 0 for none) as a time.
func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// checkContent checks the content of the pages the state has in line (State.PagesToCheck: the
// suspects first, then those checked longest ago), at most changes.checksPerRun of them within
// the run's budget, through c.pages — the preflight's fetches, or the site's build on disk. A
// page whose content changed is looked up again, and is due on each channel that was sent other
// content (DueReason). When pages are fetched, the line is checked in its order before the
// channels up to its first page never checked: a first check makes nothing due, and it and the
// rest of the line wait for the channels to have what is due (checkAfter), in order, so that
// fetches do not hold new pages up within the budget, nor the rotation starve pages left
// unchecked; a page found changed after the channels is due at the next run. The reader is told of
// them, so that a preflight's fetch of one reads it whole (channel.PageExpecter). Pages read from
// disk are all read first: a URL with no file there is decided by its lastmod, before the
// channels. A run that writes nothing, or takes chosen URLs, checks nothing.
func (r *Runner) checkContent(run contexts, c *collector) error {
	limit, pages := c.site.Changes.ChecksPerRun, c.pages
	if pages == nil || !c.mode.writes || c.mode.chosen || !c.site.Changes.Checks() || limit <= 0 {
		return nil
	}
	todo, beyond, err := c.pagesToCheck(run.ctx, limit)
	if err != nil || len(todo) == 0 {
		return err
	}
	c.changes().Left = beyond
	var compare []model.ToCheck
	var after []string
	fetches, later := pages.(channel.PageExpecter)
	deferring := false
	for _, t := range todo {
		deferring = deferring || later && t.Content == 0
		if deferring {
			c.checksAfter = append(c.checksAfter, t)
			after = append(after, t.URL)
		} else {
			compare = append(compare, t)
		}
	}
	if len(after) > 0 {
		fetches.Expect(after)
	}
	changed, err := r.check(run, c, compare)
	if err != nil {
		return err
	}
	return c.chooseChanged(run.ctx, changed)
}

// checkAfter makes the checks checkContent left for after the channels, within what is left of
// the run's budget: a first check records the page's content, as the content sent to the
// channels that had it; a page found changed is due at the next run (its content is not what was
// sent); those not made are made by a run after.
func (r *Runner) checkAfter(run contexts, c *collector) error {
	_, err := r.check(run, c, c.checksAfter)
	c.noteCheckErrors()
	return err
}

// check reads the pages of todo, counts what it found in the record, and records it in the state
// (State.RecordChecks); it returns the pages to look up again: those whose content changed, and
// those changes.dir has no file for, whose lastmod decides.
func (r *Runner) check(run contexts, c *collector, todo []model.ToCheck) ([]channel.Page, error) {
	if len(todo) == 0 {
		return nil, nil
	}
	got := c.changes()
	checks := readPages(run.budget, c.pages, todo, c.now)
	var again []channel.Page
	for i, t := range todo {
		switch ck := checks[i]; {
		case ck.err == nil && ck.Hash == 0:
			if t.Suspect {
				got.Left++
			}
			continue
		case errors.Is(ck.err, fs.ErrNotExist):
			// changes.dir has no file for it: its lastmod says, as without content checks.
			if r.Warn != nil {
				r.Warn(c.site.ID, ck.err.Error()+": its lastmod decides whether it is due")
			}
			again = append(again, channel.Page{Hash: t.Hash, Lastmod: t.Lastmod})
			continue
		case ck.err != nil:
			got.Failed++
			if got.Failed <= maxCheckErrors {
				c.checkErrs = append(c.checkErrs, fmt.Sprintf("%s: %v", t.URL, ck.err))
			}
			continue
		case t.Content == 0:
			got.First++
		case ck.Changed:
			got.Changed++
			again = append(again, channel.Page{Hash: t.Hash, Lastmod: t.Lastmod, Check: true})
		case ck.notModified:
			got.Same++
			got.NotModified++
		default:
			got.Same++
		}
		got.Checked++
	}
	return again, c.state.RecordChecks(run.ctx, c.site.ID, recorded(checks))
}

// pagesToCheck returns the first limit pages in line for a content check (State.PagesToCheck),
// and how many suspects wait beyond them, for the record (Changes.Left). Only a line whose last
// page taken is a suspect is read further, twice as far each time until it ends or a page is
// not one: a run with fewer suspects than its checks reads no more of it, one with more reads
// the suspects a few times over.
func (c *collector) pagesToCheck(ctx context.Context, limit int) (todo []model.ToCheck, beyond int, err error) {
	todo, err = c.state.PagesToCheck(ctx, c.site.ID, limit)
	line := todo
	for n := limit; err == nil && len(line) == n && line[n-1].Suspect; {
		n *= 2
		line, err = c.state.PagesToCheck(ctx, c.site.ID, n)
	}
	if err != nil {
		return nil, 0, err
	}
	for _, t := range line[len(todo):] {
		if t.Suspect {
			beyond++
		}
	}
	return todo, beyond, nil
}

// sayVerdicts puts in the record how each sitemap read tells what changed, when one is checked by
// content.
func (c *collector) sayVerdicts() {
	if c.contentRead {
		c.changes().Sitemaps = c.verdicts
	}
}

// pageReader returns what reads site's pages for a run with opt (Runner.Pages); nil for none.
func (r *Runner) pageReader(site *config.Site, opt Options) channel.PageReader {
	if r.Pages == nil {
		return nil
	}
	return r.Pages(site, opt.Channels)
}

// changes returns the record's account of content checks, made when it has none.
func (c *collector) changes() *model.Changes {
	if c.rec.Changes == nil {
		c.rec.Changes = &model.Changes{}
	}
	return c.rec.Changes
}

// noteCheckErrors notes in the record the checks that failed, a few of them quoted.
func (c *collector) noteCheckErrors() {
	if c.rec.Changes == nil || c.rec.Changes.Failed == 0 {
		return
	}
	n := c.rec.Changes.Failed
	c.rec.Notes = append(c.rec.Notes, fmt.Sprintf("content checks: %s could not be read: %s (%s)",
		human.Count(n, "page"), c.later.Suspects(n), strings.Join(c.checkErrs, "; ")))
}

// pageChecked is what the content check of one page found: its check — a zero Hash when it was
// not read — whether it answered 304, and why it could not be read.
type pageChecked struct {
	model.PageCheck
	notModified bool
	err         error
}

// readPages reads the pages of todo through pages, checkParallel at a time, until ctx ends: the
// check of todo[i] is checks[i]. A page that answered 304 is unchanged, with the content of its
// check before.
func readPages(ctx context.Context, pages channel.PageReader, todo []model.ToCheck, now time.Time) (checks []pageChecked) {
	checks = make([]pageChecked, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(checkParallel, len(todo)) {
		wg.Go(func() {
			for i := range next {
				checks[i] = readPage(ctx, pages, todo[i], now)
			}
		})
	}
	for i := range todo {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return checks
}

// readPage checks one page: its PageCheck has a zero Hash when ctx ended before it was read.
func readPage(ctx context.Context, pages channel.PageReader, t model.ToCheck, now time.Time) pageChecked {
	if ctx.Err() != nil {
		return pageChecked{}
	}
	read, err := pages.ReadPage(ctx, t.URL, t.Validators)
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(err, channel.ErrNoFetch)):
		// The run's end, or its last requests kept for the engines (a Worker's invocation): not
		// the page's fault, not a failed check.
		return pageChecked{}
	case err != nil:
		return pageChecked{PageCheck: model.PageCheck{Hash: t.Hash, At: now}, err: err}
	case read.NotModified:
		read.Content = t.Content
		if read.Validators == (model.Validators{}) {
			read.Validators = t.Validators
		}
	}
	return pageChecked{PageCheck: model.PageCheck{Hash: t.Hash, At: now, Content: read.Content, Validators: read.Validators,
		Changed: t.Content != 0 && read.Content != t.Content}, notModified: read.NotModified}
}

// recorded returns the checks to record: those of the pages read (a failed check changes
// nothing: the page stays where it was in line).
func recorded(checks []pageChecked) []model.PageCheck {
	var out []model.PageCheck
	for _, ck := range checks {
		if ck.Hash != 0 && ck.err == nil && ck.Content != 0 {
			out = append(out, ck.PageCheck)
		}
	}
	return out
}

// chooseChanged looks the pages whose content changed up again, now that their check is
// recorded, and queues each on the channels that were sent other content — and those of them
// without Check as their lastmod makes them due.
func (c *collector) chooseChanged(ctx context.Context, pages []channel.Page) error {
	if len(pages) == 0 {
		return nil
	}
	states, err := c.look(ctx, pages, false)
	if err != nil {
		return err
	}
	n := len(c.channels)
	for i, p := range pages {
		for ch := range c.channels {
			c.newest[ch].add(p)
			if d, ok := c.choose(ch, p, states[i*n+ch]); ok {
				c.due[ch].Add(d)
			}
		}
	}
	return nil
}
