package runner

import (
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

const (
	// lookUpBatch is how many pages are looked up in the state at once: one query, one transaction.
	// Pages are looked up in hash order, so that a batch writes neighbouring rows of the
	// catalogue.
	lookUpBatch = 50_000
	// sampleSize is how many due URLs per channel a dry run shows.
	sampleSize = 20
)

// collector carries a run's pages through the steps of doc.go: it takes the pages the reader
// delivers, keeps those in scope, tells them apart, merges them with what the run remembers and
// what the state knows a batch at a time, and chooses what is due on each channel.
type collector struct {
	state    State
	site     *config.Site
	rec      *model.Record
	channels []string
	now      time.Time
	mode     mode
	host     string // baseUrl's host, lower case
	progress func()

	batch     []channel.Page
	file      file // the sitemap being read
	memo      *memos
	due       []*channel.Queue // per channel
	selection []channel.Selection
	newest    []newest // per channel, for those whose selection asks

	// base is the run's Baseline (Options.Baseline): nil without one.
	base *Baseline

	// seen holds every page taken, seenOut every URL the filter left out.
	seen, seenOut seen

	// known is set for a channel when a URL read is known on it: a channel with none known has
	// its first run for the site, where the backlog setting applies.
	known []bool
	// look looks a batch of pages up in the state (chooseLookUp).
	look lookUpFunc
	// doneErr is why taking a sitemap the reader ended failed (done, which returns nothing): the
	// read stops, the run ends with it.
	doneErr error
	// urls holds the text of the due URLs in a dry run, which writes nothing to the state: the
	// queues read their URLs from it.
	urls channel.URLMap
	// began is when the run's work began, and lastDone when the reader last told the end of a
	// sitemap's read; lastTook is how long that sitemap took, from the end of the one before:
	// the one the budget cut short is the last.
	began, lastDone time.Time
	lastTook        time.Duration
	// verdicts says, by sitemap read, how its pages' changes are told (byContent), contentRead
	// whether one is checked by content; checkErrs quotes the first content checks that failed.
	// pages reads pages for content checks (Runner.Pages); nil when the run can read none.
	pages       channel.PageReader
	verdicts    map[string]string
	contentRead bool
	checkErrs   []string
	// checksAfter are the pages checkContent left for after the channels (checkAfter).
	checksAfter []model.ToCheck
	// later words what becomes of the pages the run could not check (Options.Later).
	later model.Later
}

func newCollector(state State, site *config.Site, rec *model.Record, channels []string, selection []channel.Selection, now time.Time, m mode) *collector {
	c := &collector{state: state, site: site, rec: rec, channels: channels, now: now, mode: m,
		host: site.Host(), due: make([]*channel.Queue, len(channels)),
		memo: &memos{state: state, site: site.ID, scope: scopeOf(site, channels),
			mode:    m,
			settled: map[string]model.SitemapMemo{}, whole: map[string]model.SitemapMemo{}, unfinished: map[string]model.SitemapMemo{}, inUse: map[string]model.SitemapMemo{}, met: map[string]bool{}, has: map[string]bool{}},
		selection: selection, newest: make([]newest, len(channels)), known: make([]bool, len(channels)),
		verdicts: map[string]string{}}
	c.look = c.syncCatalog
	if !m.writes {
		c.urls = channel.URLMap{}
	}
	for i, p := range selection {
		c.newest[i].n = p.Newest
		c.due[i] = c.newQueue()
	}
	for _, name := range channels {
		rec.Channels[name] = &model.ChannelStats{Endpoints: map[string]*model.EndpointStats{}}
	}
	return c
}
