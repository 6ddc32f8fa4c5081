package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// stallLimit is how many runs in a row a site's budget may stop before they make any progress,
// before the site's runs fail: its budget is too small for it ever to get on.
const stallLimit = 3

// carryOn goes on with a read of the sitemaps that earlier runs left unfinished: it takes the
// pages of the sitemaps they read whole from their memos — the reader does not ask for those
// again — looks each up, and, in a run that writes, delivers what is due of them before the read
// goes on, on each channel that need not wait for a whole read. So a site whose sitemaps take
// several runs to read delivers as it goes, whatever the rest of the read costs.
func (r *Runner) carryOn(run contexts, col *collector, chans []channel.Channel, rep *recorder) error {
	ctx, budget := run.ctx, run.budget
	taken := col.memo.toTake()
	for _, memo := range taken {
		if err := col.takeMemo(ctx, memo); err != nil {
			return err
		}
	}
	if len(taken) == 0 || !col.mode.writes {
		return nil
	}
	for i, ch := range chans {
		q := col.due[i]
		// A channel that ranks what is due (Bing's quota goes newest first) gets it from the run
		// that reaches the end of the read, when it can rank every page.
		if q.Len() == 0 || col.selection[i].Ranked || col.waitsForWholeRead(i) {
			continue // kept for the end of the read
		}
		col.rec.Channels[ch.Name()].Due -= q.SortByHash()
		q.Read(nil, false)
		rep.answers.owe(ch.Name(), q)
		r.deliver(budget, ch, q, rep)
		col.due[i] = col.newQueue()
	}
	return nil
}

// takeMemo takes the pages of a sitemap the unfinished read read whole, as its memo holds them,
// and looks those no earlier sitemap gave up in the state.
func (c *collector) takeMemo(ctx context.Context, memo model.SitemapMemo) error {
	pages, err := c.state.SitemapPages(ctx, c.site.ID, memo.Sitemap)
	if err != nil || !c.memo.usable(memo.Sitemap, pages) {
		return err
	}
	f := &c.file
	f.reset(memo.Sitemap)
	defer f.reset("")
	f.pages = slices.AppendSeq(f.pages, pagesOf(pages))
	c.rec.TotalURLs += len(f.pages)
	c.rec.Filtered += memo.Filtered
	_, unseen := c.tellApart(f.pages)
	return c.lookUp(ctx, unseen, nil, false)
}

// waitsForWholeRead reports whether channel ch delivers only once the read of the sitemaps is
// whole: its first run, when it takes only the newest pages (the feed) or when the backlog
// setting leaves some out.
func (c *collector) waitsForWholeRead(ch int) bool {
	return c.selection[ch].FirstRun || c.limitedFirstRun(ch)
}

// newQueue returns an empty queue of the run's due URLs on a channel, whose text comes from the
// state — or, in a dry run, which writes nothing, from what the run read.
func (c *collector) newQueue() *channel.Queue {
	return channel.NewQueue(c.site.ID, c.urlSource())
}

// urlSource is where the text of the run's due URLs comes from.
func (c *collector) urlSource() channel.URLs {
	if c.urls != nil {
		return c.urls
	}
	return c.state
}

// newestOf returns the newest pages of channel ch, with their URLs: those taken from memos are
// read from the state.
func (c *collector) newestOf(ctx context.Context, ch int) ([]channel.Page, error) {
	pages := c.uncovered(c.newest[ch].list())
	var hashes []int64
	for _, p := range pages {
		if p.URL == "" {
			hashes = append(hashes, p.Hash)
		}
	}
	if len(hashes) == 0 {
		return pages, nil
	}
	found, err := c.urlSource().URLs(ctx, c.site.ID, hashes)
	if err != nil {
		return nil, err
	}
	byHash := make(map[int64]string, len(hashes))
	for i, h := range hashes {
		byHash[h] = found[i]
	}
	for i := range pages {
		if pages[i].URL == "" {
			pages[i].URL = byHash[pages[i].Hash]
		}
	}
	return pages, nil
}

// progressed reports whether a run got anywhere: a sitemap read whole that the read in progress
// had not, or a URL delivered.
func progressed(col *collector, rec *model.Record) bool {
	if col.memo.readWhole() > 0 {
		return true
	}
	for _, st := range rec.Channels {
		if st.Submitted > 0 {
			return true
		}
	}
	return false
}

// stalled says why a site's runs make no progress — its budget ran out before a sitemap was read
// whole or a URL delivered, stallLimit runs in a row — and what to raise, by how much as far as
// the run can tell.
func stalled(budget context.Context, col *collector, res *sitemap.Result, runs int) string {
	cause := context.Cause(budget)
	msg := fmt.Sprintf("%v before a sitemap was read whole or a URL delivered, %d runs in a row: the site makes no progress", cause, runs)
	if !errors.Is(cause, errRunBudget) {
		asked := len(res.Sitemaps) - len(col.memo.met) // those of the unfinished read were not asked for
		return msg + fmt.Sprintf("; this run asked for %s (indexes included) without getting one sitemap of pages whole: raise that budget, or split the site", human.Count(asked, "file"))
	}
	budgetLen := col.site.RunBudget.D()
	for _, sm := range res.Sitemaps {
		if sm.Err == nil || !errors.Is(sm.Err, budget.Err()) {
			continue
		}
		took := col.lastTook
		before := col.lastDone.Add(-took).Sub(col.began) // what the run spent before that sitemap
		switch {
		case sm.Received == 0:
			return msg + fmt.Sprintf("; %s had sent nothing after %s: check that it answers, or raise runBudget well above %s",
				sm.URL, short(took), budgetLen)
		case sm.Length > 0 && sm.Received < sm.Length:
			need := before + time.Duration(float64(took)*float64(sm.Length)/float64(sm.Received))
			return msg + fmt.Sprintf("; %s had sent %d of %d bytes after %s: reading it whole takes about %s at that pace, so raise runBudget (%s) to at least %s",
				sm.URL, sm.Received, sm.Length, short(took), short(need), budgetLen, roundUp(need))
		default:
			return msg + fmt.Sprintf("; %s had sent %d bytes after %s and was not finished: raise runBudget (%s) by more than that",
				sm.URL, sm.Received, short(took), budgetLen)
		}
	}
	return msg + fmt.Sprintf(": raise runBudget (%s)", budgetLen)
}

// short writes a duration for a person: to the tenth of a second below 10 s, else the second.
func short(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// roundUp rounds a duration up to the next whole second, 1s at least.
func roundUp(d time.Duration) time.Duration {
	return time.Duration(math.Ceil(max(d.Seconds(), 1))) * time.Second
}

// outcomeOfRead says how a run's read of the sitemaps ended, for what it keeps of them
// (memos.save), from what happened: whether the run's end cut a sitemap short (cut), whether
// every sitemap was read whole (complete), and whether every URL due on every channel was
// answered (answers.all) — sent, failed, skipped or held back by a preflight: a failure, or a
// verdict to check again, is found again through its delivery state.
func outcomeOfRead(cut, complete, answered bool, budget context.Context) readOutcome {
	switch {
	case cut || !answered && budget.Err() != nil:
		return readGoesOn
	case !complete:
		return readPartial
	case answered && budget.Err() == nil:
		return readSettled
	}
	return readWhole
}

// stall counts the run among those its budget stopped before they made progress — or ends the
// count, when it got anywhere or was not stopped — and fails the site at stallLimit in a row,
// saying what to raise.
func (r *Runner) stall(run contexts, col *collector, rec *model.Record, res *sitemap.Result, before int) {
	ctx, budget := run.ctx, run.budget
	if !rec.Stopped || ctx.Err() != nil || budget.Err() == nil || progressed(col, rec) {
		return
	}
	rec.Stalled = before + 1
	if rec.Stalled >= stallLimit {
		rec.Status = model.StatusFailed
		rec.AddError(stalled(budget, col, res, rec.Stalled))
		return
	}
	rec.AddNote(fmt.Sprintf("%v before a sitemap was read whole or a URL delivered: no progress, %s in a row (at %d the site's runs fail)",
		context.Cause(budget), human.Count(rec.Stalled, "run"), stallLimit))
}
