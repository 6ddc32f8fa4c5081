package server

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/sites"
	"github.com/sitepush/sitepush/internal/store"
)

// The dashboard's pages (docs/api.md, "The dashboard"): the overview, a site, a run, a URL's
// story. Each is read from the state as it is asked for; the overview's reads are cached a
// second, as /status's are.

const (
	runsPerPage = 20
	sparkDays   = 30
	chartDays   = 90
	// historyDays is the span of a site's page's charts unless 90 days are asked for, and of
	// its "From sent to seen".
	historyDays   = 30
	failedShown   = 500
	storiesShown  = 50
	causesShown   = 10
	feedShown     = 10
	failureStreak = 50 // how far back consecutive failures are counted
)

// overviewRow is a site on the overview, and the head of its own page.
type overviewRow struct {
	*answer.SiteStatus
	// Health is how much the site needs attention, one of healths.
	Health string
	// Streak counts the site's last runs in a row that failed or failed in part.
	Streak int
	// Known is how many URLs the last run read from the sitemaps.
	Known    int
	Channels []channelRow
	// Quota is Bing's quota of today, by the one rule (bing.Quota), in words; nil when Bing is off.
	Quota *quotaLine
	Spark template.HTML
	// Month is what each channel accepted and failed over the sparkline's 30 days.
	Month     []channelMonth
	LastError string
}

// channelRow is a channel's part of a site's overview.
type channelRow struct {
	Name    string
	Enabled bool
	// Due, Sent and Held are those of the channel's latest run — Run, when it is not the site's
	// latest (which ran other channels only); Failed counts URLs failed now (due again).
	Due, Sent, Held, Failed int
	Run                     int64
}

// recentFailures returns the statuses of a site's last runs, newest first, when its last run
// failed (in part): they count the failures in a row. A site whose last run went well has none
// to count, and costs no query.
func (s *Server) recentFailures(ctx context.Context, st *answer.SiteStatus) ([]string, error) {
	last := st.LastExecution
	if last == nil || last.Status != model.StatusFailed && last.Status != model.StatusPartial {
		return nil, nil
	}
	return s.state.RecentStatuses(ctx, st.SiteID, failureStreak)
}

// dayIndex is how many days day (YYYY-MM-DD) is after since's day.
func dayIndex(since time.Time, day string) int {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return -1
	}
	return int(d.Sub(since.Truncate(24*time.Hour)) / (24 * time.Hour))
}

// lastRunsLooked bounds how far back a site's runs are read for the last one of a channel the
// latest run did not deliver on (run --channel).
const lastRunsLooked = 50

// channelsLastRuns returns, by channel enabled, the latest run of the site that delivered on it:
// the latest run, unless it ran some channels only — then the runs before it are read, once.
func (s *Server) channelsLastRuns(ctx context.Context, e sites.Entry, st *answer.SiteStatus) (map[string]*model.Record, error) {
	out := map[string]*model.Record{}
	last := st.LastExecution
	if last == nil {
		return out, nil
	}
	var missing []string
	for _, name := range config.Channels {
		switch {
		case !e.Site.Enabled(name):
		case last.Channels[name] != nil:
			out[name] = last
		default:
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	runs, err := s.state.Runs(ctx, e.Site.ID, lastRunsLooked)
	if err != nil {
		return nil, err
	}
	for _, name := range missing {
		for i := range runs {
			if runs[i].Channels[name] != nil && runs[i].Status != model.StatusRunning {
				out[name] = &runs[i]
				break
			}
		}
	}
	return out, nil
}

// overviewRow reads what the overview shows of a site beside its status; lasts holds each
// channel's latest run (channelsLastRuns).
func (s *Server) overviewRow(e sites.Entry, st *answer.SiteStatus, statuses []string, failed map[string]int, lasts map[string]*model.Record) *overviewRow {
	row := &overviewRow{SiteStatus: st}
	for _, status := range statuses {
		if status != model.StatusFailed && status != model.StatusPartial {
			break
		}
		row.Streak++
	}
	last := st.LastExecution
	for _, name := range config.Channels {
		c := channelRow{Name: name, Enabled: e.Site.Enabled(name), Failed: failed[name]}
		if rec := lasts[name]; rec != nil {
			cs := rec.Channels[name]
			c.Due, c.Sent, c.Held = cs.Due, cs.Submitted, cs.Held
			if rec != last {
				c.Run = rec.ID
			}
		}
		row.Channels = append(row.Channels, c)
	}
	if last != nil {
		row.Known = last.TotalURLs
		if len(last.Errors) > 0 {
			row.LastError = last.Errors[0]
		}
	}
	if st.Bing.Enabled {
		row.Quota = quotaLineOf(st.Bing.Quota)
	}
	row.Health = healths[health(st, failed)]
	return row
}

// health says how much a site needs attention, as an index in healths. It is read from the
// site's status and its URLs failed now, without a query of its own, so that it is known for
// every site at once: failures in a row start with the last run, which tells whether there are.
func health(st *answer.SiteStatus, failed map[string]int) int {
	last := st.LastExecution
	failedNow := 0
	for _, name := range config.Channels {
		failedNow += failed[name]
	}
	switch {
	case last == nil:
		return healthNever
	case last.Status == model.StatusFailed:
		return healthFailing
	case last.Status == model.StatusPartial || failedNow > 0:
		return healthNeeds
	case st.Status == model.StatusRunning:
		return healthRunning
	}
	return healthOK
}

// sitePage is what a site's page shows.
type sitePage struct {
	Row      *overviewRow
	Channels []string // enabled
	Charts   []chart
	// Days is the charts' span: historyDays, or chartDays when asked (?days=90).
	Days int
	Runs []model.Record
	// PageNo is the runs' page, from 1, of Pages; Total counts the site's runs.
	PageNo, Pages, Total int
	Causes               []store.Cause
	// Seen is what the engines did with the site's URLs over historyDays, a line each.
	Seen     []fact
	Feed     []model.FeedItem
	Settings string
	Query    string
	// Failing counts the site's URLs failed now, over its channels: Retry failed is offered
	// when there are some. Unread is set when the last run read none of the site's sitemaps
	// (sitemapsUnread): Retry and Resubmit are not offered then.
	Failing int
	Unread  bool
}

// chart is a channel's chart over some days, with its numbers as a table.
type chart struct {
	Channel string
	Days    int
	SVG     template.HTML
	Rows    []chartRow
}

// chartRow is a day of a chart.
type chartRow struct {
	Day                string
	Sent, Failed, Held int
}

// sitePageHandler shows one site: its charts, runs, failure causes, feed and settings.
func (s *Server) sitePageHandler(w http.ResponseWriter, r *http.Request) {
	e, ok := s.sites.Get(r.PathValue("id"))
	if !ok {
		s.notFound(w, r, "There is no site "+strconv.Quote(r.PathValue("id"))+".")
		return
	}
	p, err := s.siteData(r, e)
	if err != nil {
		s.failedPage(w, r, err)
		return
	}
	running, refresh := p.Row.Status == model.StatusRunning, 0
	if running {
		refresh = 5
	}
	s.render(w, r, http.StatusOK, "site.html", page{Title: e.Site.ID + " — sitepush", Flash: flashOf(r, running), Refresh: refresh, Data: p})
}

// siteData reads what a site's page shows.
func (s *Server) siteData(r *http.Request, e sites.Entry) (*sitePage, error) {
	ctx := r.Context()
	id := e.Site.ID
	st, err := s.siteStatus(ctx, e)
	if err != nil {
		return nil, err
	}
	statuses, err := s.state.RecentStatuses(ctx, id, failureStreak)
	if err != nil {
		return nil, err
	}
	failed, err := s.state.FailedCounts(ctx, id)
	if err != nil {
		return nil, err
	}
	lasts, err := s.channelsLastRuns(ctx, e, st)
	if err != nil {
		return nil, err
	}
	p := &sitePage{Row: s.overviewRow(e, st, statuses, failed, lasts), Unread: sitemapsUnread(st.LastExecution)}
	for _, name := range config.Channels {
		if e.Site.Enabled(name) {
			p.Channels = append(p.Channels, name)
		}
		p.Failing += failed[name]
	}
	p.Days = historyDays
	if r.URL.Query().Get("days") == strconv.Itoa(chartDays) {
		p.Days = chartDays
	}
	if p.Charts, err = s.charts(ctx, id, p.Channels, p.Days); err != nil {
		return nil, err
	}
	p.PageNo, _ = strconv.Atoi(r.URL.Query().Get("page"))
	p.PageNo = max(1, p.PageNo)
	if p.Runs, p.Total, err = s.state.RunsPage(ctx, id, (p.PageNo-1)*runsPerPage, runsPerPage); err != nil {
		return nil, err
	}
	p.Pages = max(1, (p.Total+runsPerPage-1)/runsPerPage)
	if p.Causes, err = s.state.FailureCauses(ctx, id, s.now().AddDate(0, 0, -chartDays), causesShown); err != nil {
		return nil, err
	}
	seen, err := s.state.SeenSince(ctx, id, s.now().AddDate(0, 0, -historyDays))
	if err != nil {
		return nil, err
	}
	p.Seen = seenFacts(e.Site, seen)
	if e.Site.Feed.Enabled {
		if p.Feed, err = s.state.FeedItems(ctx, id, feedShown); err != nil {
			return nil, err
		}
	}
	settings, err := json.MarshalIndent(e.Site.Masked(), "", "  ")
	if err != nil {
		return nil, err
	}
	p.Settings = string(settings)
	return p, nil
}

// sitemapsUnread reports whether last, a site's last run, read none of its sitemaps. Until one
// reads, a run of the failed URLs (Retry failed) reads them and fails alike, and a URL sent again
// by hand leaves the failure as it was: the site's page offers neither, only the fix and Run now.
func sitemapsUnread(last *model.Record) bool {
	return last != nil && last.Status != model.StatusRunning && last.Sitemaps.Failed > 0 && last.Sitemaps.Read == 0
}

// charts draws each channel's URLs accepted, failed and held per day over the last days: the
// daily statistics count the first two; the held are the most URLs a run of the day held back for
// a quota — the same URLs wait run after run, and are counted once a day.
func (s *Server) charts(ctx context.Context, site string, channels []string, days int) ([]chart, error) {
	today := s.now().UTC().Truncate(24 * time.Hour)
	since := today.AddDate(0, 0, -(days - 1))
	stats, err := s.state.ChannelDays(ctx, since, site)
	if err != nil {
		return nil, err
	}
	runs, err := s.state.RunsSince(ctx, site, since)
	if err != nil {
		return nil, err
	}
	byDay := map[string]map[string]*chartRow{}
	row := func(ch, day string) *chartRow {
		if byDay[ch] == nil {
			byDay[ch] = map[string]*chartRow{}
		}
		if byDay[ch][day] == nil {
			byDay[ch][day] = &chartRow{Day: day}
		}
		return byDay[ch][day]
	}
	for _, d := range stats {
		r := row(d.Channel, d.Day)
		r.Sent, r.Failed = d.Successful, d.Failed
	}
	for _, rec := range runs {
		for ch, cs := range rec.Channels {
			r := row(ch, rec.StartedAt.UTC().Format(time.DateOnly))
			r.Held = max(r.Held, cs.Held)
		}
	}
	var out []chart
	for _, ch := range channels {
		c := chart{Channel: ch, Days: days}
		var labels []string
		parts := []series{{"accepted", colourSent, nil}, {"failed", colourFailed, nil}, {"held by quota", colourHeld, nil}}
		for i := days - 1; i >= 0; i-- {
			day := today.AddDate(0, 0, -i).Format(time.DateOnly)
			r := chartRow{Day: day}
			if have := byDay[ch][day]; have != nil {
				r = *have
			}
			labels = append(labels, day)
			parts[0].Values = append(parts[0].Values, r.Sent)
			parts[1].Values = append(parts[1].Values, r.Failed)
			parts[2].Values = append(parts[2].Values, r.Held)
			if r.Sent+r.Failed+r.Held > 0 {
				c.Rows = append(c.Rows, r)
			}
		}
		c.SVG = barChart(ch+": URLs per day over "+human.Count(days, "day"), labels, parts)
		out = append(out, c)
	}
	return out, nil
}

// runPage is what a run's page shows.
type runPage struct {
	Run model.Record
	// Waits are the waits engines asked the run's channels for, not over yet (a run going).
	Waits    []Wait
	Channels []string // those of the run, in the usual order
	Failed   []store.FailedURL
	Running  bool
	// URLs are those the run names, a page of them.
	URLs runURLs
}

// runPageHandler shows a run's execution record in full and the URLs it names (or, for a run
// that names none, those whose last attempt failed within it); it reloads itself while the run
// goes.
func (s *Server) runPageHandler(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		s.notFound(w, r, "A run's id is a number: /runs/42.")
		return
	}
	rec, ok, err := s.state.Run(r.Context(), id)
	if err != nil {
		s.failedPage(w, r, err)
		return
	}
	if !ok {
		s.notFound(w, r, "There is no run "+strconv.FormatInt(id, 10)+": runs are kept 90 days.")
		return
	}
	p := runPage{Run: rec, Running: rec.Status == model.StatusRunning}
	live, waits, going := s.going.Of(rec.Site, rec.ID)
	if going = going && p.Running; going {
		p.Run, p.Waits = live, waits
	}
	p.Channels = channelsOf(p.Run)
	if p.URLs, err = s.runURLsOf(r.Context(), r, p.Run, going); err != nil {
		s.failedPage(w, r, err)
		return
	}
	if p.URLs.Total == 0 {
		// A run recorded before runs named their URLs, or interrupted: its failures are found
		// from the deliveries whose last attempt fell within it.
		end := rec.FinishedAt
		if end.IsZero() {
			end = s.now()
		}
		if p.Failed, err = s.state.FailedURLs(r.Context(), rec.Site, rec.StartedAt, end, failedShown); err != nil {
			s.failedPage(w, r, err)
			return
		}
	}
	refresh := 0
	if p.Running {
		refresh = 2
	}
	s.render(w, r, http.StatusOK, "run.html", page{Title: "Run " + strconv.FormatInt(id, 10) + " of " + rec.Site + " — sitepush",
		Flash: flashOf(r, p.Running), Refresh: refresh, Data: p})
}

// channelsOf returns the channels of rec in the usual order (config.Channels).
func channelsOf(rec model.Record) []string {
	var out []string
	for _, name := range config.Channels {
		if rec.Channels[name] != nil {
			out = append(out, name)
		}
	}
	return out
}

// storyPage is what the URL search of a site shows.
type storyPage struct {
	Site     string
	Query    string
	Channels []string
	URLs     []story
}

// story is a URL's state, and on each channel whether it is due now and why.
type story struct {
	store.URLState
	Channels []channelStory
	// Content says where its page stands in the content checks, as URLStory.ContentLine does.
	Content string
}

// channelStory is a URL on one channel.
type channelStory struct {
	Name      string
	Delivery  store.Delivery
	Delivered bool // ever had the URL
	// SameAsSent says whether the page's content is what the channel was sent (ChannelStory's).
	SameAsSent *bool
	// Due says whether it is due now and why: new, failed, changed, resubmit; "" when it is not.
	Due string
	// Held says why Bing's quota holds it today, when it is due.
	Held string
}

// urlStories shows the story of a site's URLs matching ?q: the URL itself or those it prefixes.
func (s *Server) urlStories(w http.ResponseWriter, r *http.Request) {
	e, ok := s.sites.Get(r.PathValue("id"))
	if !ok {
		s.notFound(w, r, "There is no site "+strconv.Quote(r.PathValue("id"))+".")
		return
	}
	p := storyPage{Site: e.Site.ID, Query: r.URL.Query().Get("q")}
	for _, name := range config.Channels {
		if e.Site.Enabled(name) {
			p.Channels = append(p.Channels, name)
		}
	}
	if p.Query != "" {
		found, err := s.state.URLStory(r.Context(), e.Site.ID, p.Query, func(u string) int64 { return runner.URLHash([]byte(u)) }, storiesShown)
		if err != nil {
			s.failedPage(w, r, err)
			return
		}
		held, err := heldByQuota(r.Context(), s.state, e.Site, s.now())
		if err != nil {
			s.failedPage(w, r, err)
			return
		}
		only := onlyNew(r.Context(), s.state, e.Site, s.now())
		for _, u := range found {
			chans := channelStories(e.Site, only, u, s.now(), held)
			p.URLs = append(p.URLs, story{URLState: u, Channels: chans, Content: sayContent(contentStory(u.Checks), timeOrNil(u.Lastmod), sentStories(chans), utc)})
		}
	}
	s.render(w, r, http.StatusOK, "urls.html", page{Title: "URLs of " + e.Site.ID + " — sitepush", Flash: flashOf(r, false), Data: p})
}

// notFound shows a page that says what is missing.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, msg string) {
	s.render(w, r, http.StatusNotFound, "message.html", page{Title: "Not found — sitepush", Error: msg})
}

// failedPage shows that the state could not be read.
func (s *Server) failedPage(w http.ResponseWriter, r *http.Request, err error) {
	s.logger.Error("showing a dashboard page", "path", r.URL.Path, "err", err)
	s.render(w, r, http.StatusServiceUnavailable, "message.html", page{Title: "Unavailable — sitepush",
		Error: "The state could not be read: " + err.Error()})
}

// fact is a line of a site's page: what, and how much.
type fact struct{ Label, Value string }

// seenFacts tells, a line each, what the engines did with a site's URLs: those submitted, the
// share Bing was seen to crawl and how soon, the share Google says it indexed, those a preflight
// held back by reason, the removal notices sent. A line that does not apply to the site is left
// out.
func seenFacts(site *config.Site, s *store.SeenSince) []fact {
	out := []fact{{"Submitted", human.Count(s.Submitted, "URL") + " accepted by IndexNow or Bing"}}
	if site.Bing.Enabled && site.Bing.Track {
		v := fmt.Sprintf("%d %% of the URLs submitted (%d)", percent(s.CrawledByBing, s.Submitted), s.CrawledByBing)
		if s.CrawledByBing > 0 {
			v += fmt.Sprintf(", %.1f h after submission at the median", s.MedianHours)
		}
		out = append(out, fact{"Crawled by Bing", v})
	}
	if site.Google.Enabled && site.Google.Inspect {
		out = append(out, fact{"Indexed by Google", fmt.Sprintf("%d %% of the URLs inspected (%d of %d)", percent(s.Indexed, s.Inspected), s.Indexed, s.Inspected)})
	}
	if len(s.Ineligible) > 0 {
		var parts []string
		for _, reason := range slices.Sorted(maps.Keys(s.Ineligible)) {
			parts = append(parts, fmt.Sprintf("%d %s", s.Ineligible[reason], reason))
		}
		out = append(out, fact{"Not eligible", strings.Join(parts, ", ")})
	}
	if site.IndexNow.Enabled && site.IndexNow.Removed {
		out = append(out, fact{"Removals announced", fmt.Sprintf("%d through IndexNow", s.Removed)})
	}
	return out
}
