package runner

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/sitemap"
)

// Baseline is what a site's sitemaps listed before — the live site's sitemap before a deploy
// (sitepush run --baseline): each page by hash. A run given one takes every URL it lists with
// the same or a later lastmod as delivered, so that it sends what is new or changed since, and
// announces through IndexNow, as removed, what it lists and the sitemaps no longer do.
type Baseline map[int64]channel.Page

// ReadBaseline reads the sitemaps of targets (URLs or files, an index and its children) with r
// into a Baseline. A baseline read only in part would take what it missed for new: every
// sitemap must be read whole.
func ReadBaseline(ctx context.Context, r *sitemap.Reader, targets []string) (Baseline, error) {
	b := Baseline{}
	res, err := r.Read(ctx, targets, func(e sitemap.Entry) error {
		u := []byte(e.URL)
		u = canonical(u, authorityOf(u))
		h := URLHash(u)
		b[h] = channel.Page{Hash: h, URL: string(u), Lastmod: e.Lastmod}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if failed := res.Failed(); len(failed) > 0 {
		return nil, fmt.Errorf("sitemap %s could not be read: %v; a comparison with part of it would take the URLs it lists for new or removed",
			failed[0].URL, failed[0].Err)
	}
	return b, nil
}

// covers reports whether the baseline lists the URL of hash with the same or a later lastmod: it
// was there before the deploy and did not change since. A URL without a lastmod is covered by
// being listed; one with a lastmod, only by an entry with one.
func (b Baseline) covers(hash int64, lastmod time.Time) bool {
	p, ok := b[hash]
	return ok && (lastmod.IsZero() || !p.Lastmod.IsZero() && !p.Lastmod.Before(lastmod))
}

// baseline takes out of channel ch's queue the URLs the run's baseline covers, unless their last
// attempt failed or they are removal notices, and records them as known (skipped), as a first
// run's backlog does: they are not sent, and a later run sends them only when they change.
func (c *collector) baseline(ctx context.Context, ch int, rep *recorder) error {
	q, name := c.due[ch], c.channels[ch]
	if c.base == nil || q.Len() == 0 {
		return nil
	}
	old := q.Split(func(m channel.Meta) bool {
		_, notice := rep.removals[m.Hash]
		return m.Retry || notice || !c.base.covers(m.Hash, m.Lastmod)
	})
	for from := 0; from < old.Len(); from += lookUpBatch {
		if err := rep.Finished(channel.Outcome{Channel: name, URLs: old.Refs(from, from+lookUpBatch), Skipped: true}); err != nil {
			return err
		}
	}
	if old.Len() > 0 {
		rep.Noted(name, fmt.Sprintf("%s the baseline lists unchanged: recorded as known, not sent", human.Count(old.Len(), "URL")))
	}
	return ctx.Err()
}

// uncovered returns those of pages the run's baseline does not cover: the newest pages a
// channel's first run takes (the feed's items) are new or changed since the baseline.
func (c *collector) uncovered(pages []channel.Page) []channel.Page {
	if c.base == nil {
		return pages
	}
	return slices.DeleteFunc(pages, func(p channel.Page) bool { return c.base.covers(p.Hash, p.Lastmod) })
}

// baselineLeft marks, in a run given a baseline that read every sitemap whole, the URLs in the
// site's scope that the baseline lists and the sitemaps no longer do, as having left them: the
// run probes them next (probeLeft), and announces those that answer 404 or 410. They are added
// to the catalogue first: a removal notice is sent by URL.
func (r *Runner) baselineLeft(ctx context.Context, col *collector, res *sitemap.Result) error {
	rm, _ := r.removals(col.site, col.channels)
	if rm == nil || col.base == nil || !col.mode.writes || col.mode.chosen || len(res.Failed()) > 0 || ctx.Err() != nil {
		return nil
	}
	var listed []int64
	for h, p := range col.base {
		if u := []byte(p.URL); inScope(col.site, col.host, u, authorityOf(u)) {
			listed = append(listed, h)
		}
	}
	slices.Sort(listed)
	hashes, err := col.unlisted(ctx, listed)
	if err != nil || len(hashes) == 0 {
		return err
	}
	gone := make([]channel.Page, len(hashes))
	for i, h := range hashes {
		gone[i] = channel.Page{Hash: h, URL: col.base[h].URL}
	}
	if _, err := r.State.SyncCatalog(ctx, col.site.ID, col.now, gone, nil, false); err != nil {
		return err
	}
	col.rec.AddNote(fmt.Sprintf("indexnow: %s the baseline lists left every sitemap: asked what became of them", human.Count(len(gone), "URL")))
	return rm.MarkLeft(ctx, col.site.ID, hashes, col.now)
}

// What a page of a sitemap is to a baseline (Change.Kind).
const (
	ChangeNew     = "new"     // the baseline does not list it
	ChangeChanged = "changed" // the baseline lists it with an earlier lastmod, or none
	ChangeRemoved = "removed" // the baseline lists it, the sitemap does not
)

// Change is one URL a run given the baseline would send (new, changed) or announce as removed.
type Change struct {
	Kind    string
	URL     string
	Lastmod time.Time // the sitemap's; for a removed URL, the baseline's
	Before  time.Time // the baseline's lastmod of a changed URL
}

// Diff returns what a run given the baseline before would do with the pages of now: the new URLs,
// the changed ones and the removed ones, in that order, each sorted by URL.
func Diff(before, now Baseline) []Change {
	var out, removed []Change
	for h, p := range now {
		switch b, ok := before[h]; {
		case !ok:
			out = append(out, Change{Kind: ChangeNew, URL: p.URL, Lastmod: p.Lastmod})
		case !before.covers(h, p.Lastmod):
			out = append(out, Change{Kind: ChangeChanged, URL: p.URL, Lastmod: p.Lastmod, Before: b.Lastmod})
		}
	}
	for h, p := range before {
		if _, ok := now[h]; !ok {
			removed = append(removed, Change{Kind: ChangeRemoved, URL: p.URL, Lastmod: p.Lastmod})
		}
	}
	order := map[string]int{ChangeNew: 0, ChangeChanged: 1}
	slices.SortFunc(out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(order[a.Kind], order[b.Kind]), cmp.Compare(a.URL, b.URL))
	})
	slices.SortFunc(removed, func(a, b Change) int { return cmp.Compare(a.URL, b.URL) })
	return append(out, removed...)
}
