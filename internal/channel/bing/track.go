package bing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// trackWindow is how long after its submission a URL is asked about: Bing crawls most submitted
// URLs within days, and a URL it has not crawled by then is left alone.
const trackWindow = 14 * 24 * time.Hour

// CrawlStore keeps what Bing's GetUrlInfo said of the URLs submitted through IndexNow or Bing.
// The SQL store implements it; a state that does not (the Worker's) leaves tracking off.
type CrawlStore interface {
	// BingToTrack returns at most n URLs of site whose newest submission came at or after since
	// and before before, with no crawl after it known: the oldest submission first.
	BingToTrack(ctx context.Context, site string, since, before time.Time, n int) ([]model.Submission, error)
	// RecordBingCrawl keeps what Bing said of one URL, in place of what it said before.
	RecordBingCrawl(ctx context.Context, site string, c model.BingCrawl) error
}

// Idle asks Bing about the submitted URLs in a run where nothing is due on Bing.
func (c *Channel) Idle(ctx context.Context, rep channel.Reporter) { c.track(ctx, rep) }

// track asks Bing (GetUrlInfo) about the URLs submitted in the last trackWindow before the run
// and not yet seen crawled after their submission — at most trackPerRun, the oldest submission
// first — and keeps each answer. It runs once a run, within the run's budget, and not when Bing
// refused the key or did not answer in this run. Its failures are noted, and end no delivery:
// what is not asked now is asked in a later run.
func (c *Channel) track(ctx context.Context, rep channel.Reporter) {
	if c.crawls == nil || !c.cfg.Track || c.cfg.TrackPerRun == 0 || c.tracked || c.unreachable || ctx.Err() != nil {
		return
	}
	c.tracked = true
	subs, err := c.crawls.BingToTrack(ctx, c.site, c.start.Add(-trackWindow), c.start, c.cfg.TrackPerRun)
	if err != nil {
		rep.Noted(name, fmt.Sprintf("the URLs to ask Bing about could not be chosen: %v", err))
		return
	}
	var seen, failed int
	var firstErr error
	for _, sub := range subs {
		if ctx.Err() != nil {
			break
		}
		info, err := c.URLInfo(ctx, sub.URL)
		if ctx.Err() != nil {
			break // the run's budget ended: the answer, if any, is not kept
		}
		switch {
		case errors.Is(err, ErrInvalidKey) || errors.Is(err, ErrNoAnswer):
			// No other URL would fare better in this run.
			rep.Noted(name, fmt.Sprintf("GetUrlInfo at %s: %v: no more URLs are asked about in this run", c.cfg.Endpoint, err))
			return
		case err != nil:
			if failed++; firstErr == nil {
				firstErr = err
			}
			continue
		}
		crawl := model.BingCrawl{Hash: sub.Hash, LastCrawled: info.LastCrawled, HTTPStatus: info.HTTPStatus,
			Discovered: info.Discovered, CheckedAt: time.Now(), Submitted: sub.Submitted}
		if err := c.crawls.RecordBingCrawl(ctx, c.site, crawl); err != nil {
			rep.Noted(name, fmt.Sprintf("what Bing said of %s could not be kept: %v", sub.URL, err))
			return
		}
		if took, ok := crawl.ToCrawl(); ok {
			seen++
			if c.OnCrawl != nil {
				c.OnCrawl(c.site, took)
			}
		}
	}
	if seen > 0 {
		rep.Noted(name, fmt.Sprintf("Bing crawled %s of the %s asked about (GetUrlInfo) after their submission", human.Int(seen), human.Count(len(subs), "URL")))
	}
	if failed > 0 {
		rep.Noted(name, fmt.Sprintf("GetUrlInfo at %s failed for %s of the %s asked about (%v): they are asked about again in a later run", c.cfg.Endpoint, human.Int(failed), human.Count(len(subs), "URL"), firstErr))
	}
}
