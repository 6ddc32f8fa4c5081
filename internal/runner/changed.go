package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/changes"
	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// checkParallel is how many pages a run's content checks read at once: the preflight's figure,
// whatever reads them.
const checkParallel = 8

// maxCheckErrors is how many failed checks a run's note quotes.
const maxCheckErrors = 3

// byContent decides whether the changes of the file read so far are told by its pages' content
// (docs/runs.md, "What changed"): by the site's changes.detect, and under auto by the file's
// lastmods — trusted when they tell its pages apart (changes.Lastmods). It decides once a file,
// on the first piece of one too big to hold (takePiece), and says why in the record.
func (c *collector) byContent(f *file) bool {
	if f.decided {
		return f.check
	}
	f.decided = true
	var why string
	if c.pages == nil { // a run that cannot read pages: lastmods decide
		return false
	}
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
	default: // lastmod, or a site built without its defaults: lastmods decide
		return false
	}
	if f.name != "" {
		c.verdicts[f.name] = why
	}
	c.contentRead = c.contentRead || f.check
	return f.check
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
// the run's budget, through c.pages — the preflight's fetches, or the site's build on disk. What
// they found is recorded (State.RecordChecks) and counted in the record; a page whose content
// changed is looked up again, and is due on each channel that was sent other content
// (DueReason). A run that writes nothing, or takes chosen URLs, checks nothing.
func (r *Runner) checkContent(run contexts, c *collector) error {
	limit, pages := c.site.Changes.ChecksPerRun, c.pages
	if pages == nil || !c.mode.writes || c.mode.chosen || !c.site.Changes.Checks() || limit <= 0 {
		return nil
	}
	todo, beyond, err := c.pagesToCheck(run.ctx, limit)
	if err != nil || len(todo) == 0 {
		return err
	}
	got := c.changes()
	got.Left = beyond
	checks := readPages(run.budget, pages, todo, c.now)
	var changed, byLastmod []channel.Page
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
			byLastmod = append(byLastmod, channel.Page{Hash: t.Hash, Lastmod: t.Lastmod})
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
			changed = append(changed, channel.Page{Hash: t.Hash, Lastmod: t.Lastmod, Check: true})
		case ck.notModified:
			got.Same++
			got.NotModified++
		default:
			got.Same++
		}
		got.Checked++
	}
	if err := c.state.RecordChecks(run.ctx, c.site.ID, recorded(checks)); err != nil {
		return err
	}
	c.noteCheckErrors()
	return c.chooseChanged(run.ctx, append(changed, byLastmod...))
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
	n := c.rec.Changes.Failed
	if n == 0 {
		return
	}
	pages := "pages"
	if n == 1 {
		pages = "page"
	}
	c.rec.Notes = append(c.rec.Notes, fmt.Sprintf("content checks: %d %s could not be read and stay suspects, checked again next run (%s)",
		n, pages, strings.Join(c.checkErrs, "; ")))
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
