package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

const (
	// probesPerRun bounds the URLs that left the sitemaps a run probes; the rest wait for the
	// runs after, the first to leave first.
	probesPerRun = 200
	// probesAtOnce bounds the probes in flight.
	probesAtOnce = 4
	// probeRead is as much of a probe's answer as is read: only its status counts.
	probeRead = 4 << 10
)

// removalsOn returns the index, among the run's channels, of the channel that takes removal
// notices (channel.Selection.Removals: IndexNow's, unless indexnow.removed is off), the first
// when several do; -1 when none does: the run then neither marks nor probes the URLs that left.
func (c *collector) removalsOn() int {
	return slices.IndexFunc(c.selection, func(s channel.Selection) bool { return s.Removals })
}

// notices are the removal notices a run queued (probeLeft): on which channel, and the status each
// URL answered, by hash. Their outcomes on that channel are recorded (recorder.announced).
type notices struct {
	channel string
	status  map[int64]int
}

// markLeft records, after a whole read — whatever the channels did of what it found — the URLs
// that left every sitemap since the read before (leftTheSitemaps): the next run probes them. It
// runs before the memos it compares with are replaced.
func (r *Runner) markLeft(ctx context.Context, col *collector) error {
	ch := col.removalsOn()
	if ch < 0 || !col.mode.useMemos {
		return nil
	}
	gone, err := col.leftTheSitemaps(ctx)
	if err != nil || len(gone) == 0 {
		return err
	}
	col.rec.AddNote(fmt.Sprintf("%s: %s left every sitemap: the next run asks the site what became of them", col.channels[ch], human.Count(len(gone), "URL")))
	return r.State.MarkLeft(ctx, col.site.ID, gone, col.now)
}

// leftTheSitemaps returns the URLs the memos of the sitemaps that changed or went remembered,
// settled or not, that no sitemap lists now: none the run read, nor the memo of one that did not
// change.
func (c *collector) leftTheSitemaps(ctx context.Context) ([]int64, error) {
	kept := map[string]bool{}
	for _, m := range c.memo.kept {
		kept[m.Sitemap] = true
	}
	var before []int64
	for _, group := range []map[string]model.SitemapMemo{c.memo.settled, c.memo.whole} {
		for name, m := range group {
			if kept[name] || m.Index {
				continue
			}
			pages, err := c.state.SitemapPages(ctx, c.site.ID, name)
			if err != nil {
				return nil, err
			}
			for p := range pagesOf(pages) {
				before = append(before, p.hash)
			}
		}
	}
	slices.Sort(before)
	return c.unlisted(ctx, slices.Compact(before))
}

// unlisted returns those of hashes, sorted and distinct, that no sitemap lists now: none the run
// read, nor the memo of one that did not change.
func (c *collector) unlisted(ctx context.Context, hashes []int64) ([]int64, error) {
	gone := c.seen.lacking(hashes)
	for _, m := range c.memo.kept {
		if len(gone) == 0 {
			break
		}
		pages, err := c.state.SitemapPages(ctx, c.site.ID, m.Sitemap)
		if err != nil {
			return nil, err
		}
		gone = slices.DeleteFunc(gone, func(h int64) bool { return hasPage(pages, h) })
	}
	return gone, nil
}

// probeLeft asks the site what became of the URLs that left its sitemaps (a GET, redirects not
// followed): one that answers 404 or 410 is queued as a removal notice, once, on the channel that
// takes them (removalsOn); one that answers otherwise moved or stays, and is not sent. A dry run
// asks too, and about the URLs its baseline found gone (more, from baselineLeft), so that it
// counts the notices the run would send; it records no answer. It returns the notices queued.
func (r *Runner) probeLeft(ctx context.Context, col *collector, more []channel.Page) notices {
	ch := col.removalsOn()
	if ch < 0 || col.mode.chosen || ctx.Err() != nil {
		return notices{}
	}
	name := col.channels[ch]
	left, err := r.State.LeftToProbe(ctx, col.site.ID, probesPerRun)
	left = withMore(left, more)
	if err != nil {
		if !budgetEnded(ctx, err) {
			col.rec.AddError(name + ": " + err.Error())
		}
		return notices{}
	}
	statuses := make([]int, len(left))
	client := r.probeClient()
	var wg sync.WaitGroup
	var refused atomic.Bool // the client keeps its last requests for the engines: the rest wait
	sem := make(chan struct{}, probesAtOnce)
	for i, p := range left {
		sem <- struct{}{}
		if refused.Load() {
			<-sem
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			var err error
			statuses[i], err = r.probe(ctx, client, col.site, p.URL)
			if errors.Is(err, channel.ErrNoFetch) {
				refused.Store(true)
			}
		})
	}
	wg.Wait()
	if refused.Load() {
		col.rec.AddNote(fmt.Sprintf("%s: %s that left the sitemaps wait to be asked about by a later run: %v",
			name, human.Count(len(left)-countNonZero(statuses), "URL"), channel.ErrNoFetch))
	}
	queued := notices{channel: name, status: map[int64]int{}}
	for i, p := range left {
		switch {
		case statuses[i] == 0 || statuses[i] >= 500:
			// no answer yet: probed again by the next run
		case statuses[i] == http.StatusNotFound || statuses[i] == http.StatusGone:
			// Its probe is recorded with the notice's outcome (recorder.announced): a run that
			// ends before sending it leaves the URL to probe again, and the notice is not lost.
			queued.status[p.Hash] = statuses[i]
			col.due[ch].Add(channel.Due{Hash: p.Hash, Removal: true})
			col.rec.Channels[name].Due++
			if col.urls != nil { // a dry run's URLs come from what it found
				col.urls[p.Hash] = p.URL
			}
		case !col.mode.writes:
			// a dry run records no answer
		default:
			if err := r.State.RecordProbe(ctx, col.site.ID, p.Hash, statuses[i], r.now()); err != nil {
				if !budgetEnded(ctx, err) {
					col.rec.AddError(name + ": " + err.Error())
				}
				return queued // the rest are probed again by the next run
			}
		}
	}
	if len(queued.status) > 0 {
		col.rec.AddNote(fmt.Sprintf("%s: %s gone from the sitemaps and from the site (404 or 410): a removal notice each", name, human.Count(len(queued.status), "URL")))
	}
	return queued
}

// withMore adds to the URLs left to probe those of more it lacks, up to probesPerRun in all: the
// URLs a run given a baseline marks as left come after those marked before.
func withMore(left, more []channel.Page) []channel.Page {
	for _, p := range more {
		if len(left) >= probesPerRun {
			break
		}
		if !slices.ContainsFunc(left, func(l channel.Page) bool { return l.Hash == p.Hash }) {
			left = append(left, p)
		}
	}
	return left
}

// countNonZero counts the statuses of the probes that got an answer.
func countNonZero(statuses []int) int {
	n := 0
	for _, s := range statuses {
		if s != 0 {
			n++
		}
	}
	return n
}

// probeClient is the client of probes: the run's, not following redirects (a redirect is an
// answer: the page moved).
func (r *Runner) probeClient() *http.Client {
	c := http.Client{}
	if r.Client != nil {
		c = *r.Client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// probe returns the HTTP status a page answers, within the site's sitemap timeout — a page fetch
// (channel.PageFetch) — or 0 when no answer came (the run's end among the causes), with why.
func (r *Runner) probe(ctx context.Context, client *http.Client, site *config.Site, u string) (int, error) {
	ctx, cancel := context.WithTimeout(channel.PageFetch(ctx), site.Sitemap.Timeout.D())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	if r.UserAgent != "" {
		req.Header.Set("User-Agent", r.UserAgent)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, probeRead))
	return resp.StatusCode, nil
}
