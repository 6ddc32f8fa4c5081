package server

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/answer"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/sites"
)

// The dashboard's overview (docs/api.md, "The dashboard"): the sites, what needs attention
// first, overviewPerPage at a time, with the count of each health across all sites and a search
// by id or host. A page's size does not grow with the fleet: 10,000 sites on one page were 17 MB
// that a browser fetched again every 30 s.

// overviewPerPage is how many sites a page of the overview shows.
const overviewPerPage = 50

// healths are what a site's health may be, what needs attention first: a site's rank is the
// index of its health.
var healths = []string{healthFailing: "failing", healthNeeds: "needs attention", healthRunning: "running", healthNever: "never run", healthOK: "ok"}

// The healths' indexes.
const (
	healthFailing = iota
	healthNeeds
	healthRunning
	healthNever
	healthOK
)

// fleet is every site in the overview's order, with what it takes to show any of them, and the
// number of sites of each health. It is read at once for all sites, in a few queries; what a
// site costs beyond them (its failures in a row, its channels' last runs) is read for the sites
// a page shows only.
type fleet struct {
	sites  []fleetSite
	counts []int // by health, in healths' order
	// until is when the fleet changes by itself: the first scheduled run.
	until time.Time
}

// fleetSite is a site of the fleet.
type fleetSite struct {
	entry  sites.Entry
	status *answer.SiteStatus
	health int            // index in healths
	failed map[string]int // URLs failed now, by channel
	spark  [2][]int       // URLs accepted and failed per day over sparkDays, over the channels; nil without any
	// month is what each channel accepted and failed over sparkDays, by channel.
	month map[string][2]int
	// id and host are the site's id and its baseUrl's host in lower case, for the search.
	id, host string
}

// overviewQuery is what a page of the overview is asked for: ?q, ?health and ?page.
type overviewQuery struct {
	// Search keeps the sites whose id or host contains it, whatever the case.
	Search string
	// Health keeps the sites of one health; "" keeps all.
	Health string
	Page   int
}

func queryOf(r *http.Request) overviewQuery {
	v := r.URL.Query()
	q := overviewQuery{Search: strings.TrimSpace(v.Get("q")), Page: 1}
	if slices.Contains(healths, v.Get("health")) {
		q.Health = v.Get("health")
	}
	if n, err := strconv.Atoi(v.Get("page")); err == nil && n > 1 {
		q.Page = n
	}
	return q
}

// link is the overview's path for the sites q keeps, on page.
func (q overviewQuery) link(page int) string {
	v := url.Values{}
	if q.Search != "" {
		v.Set("q", q.Search)
	}
	if q.Health != "" {
		v.Set("health", q.Health)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// overviewPage is what a page of the overview shows.
type overviewPage struct {
	overviewQuery
	Rows []*overviewRow
	// Total counts every site; Counts, those of each health, in healths' order.
	Total  int
	Counts []healthCount
	// Matching counts the sites the search and the health keep; PageNo is the page shown, from
	// 1, of Pages, and its sites are the First to the Last of those.
	Matching, PageNo, Pages, First, Last int
}

// healthCount is the number of sites of a health across all sites, and the overview of those
// sites alone, whatever the search — or of every site again, when they are what is shown.
type healthCount struct {
	Health string
	N      int
	Link   string
}

// PageLink is the path of another page of the same sites.
func (p *overviewPage) PageLink(page int) string {
	return p.link(page)
}

// Shown says which sites the page shows, of how many, and what keeps them.
func (p *overviewPage) Shown() string {
	var kept []string
	if p.Health != "" {
		kept = append(kept, "health: "+p.Health)
	}
	if p.Search != "" {
		kept = append(kept, "id or host containing “"+p.Search+"”")
	}
	which := ""
	if len(kept) > 0 {
		which = " (" + strings.Join(kept, ", ") + ")"
	}
	if p.Matching == 0 {
		return "No site" + which + "."
	}
	return "Showing " + human.Int(p.First) + "–" + human.Int(p.Last) + " of " + human.Count(p.Matching, "site") + which + "."
}

// overview shows a page of the sites, what needs attention first.
func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	q := queryOf(r)
	key := "overview:" + s.today() + ":" + strconv.Itoa(q.Page) + ":" + q.Health + ":" + q.Search
	v, err := s.cache.getUntil(key, func() (any, time.Time, error) {
		ctx, cancel := answer.Detached(r)
		defer cancel()
		return s.overviewPage(ctx, q)
	})
	if err != nil {
		s.failedPage(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "overview.html", page{Title: "sitepush — overview", Refresh: 30, Data: v})
}

// overviewPage builds a page of the overview from the fleet, and says when it changes by itself.
func (s *Server) overviewPage(ctx context.Context, q overviewQuery) (*overviewPage, time.Time, error) {
	v, err := s.cache.getUntil("fleet:"+s.today(), func() (any, time.Time, error) {
		f, err := s.readFleet(ctx)
		if err != nil {
			return nil, time.Time{}, err
		}
		return f, f.until, nil
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	f := v.(*fleet)
	p := &overviewPage{overviewQuery: q, Total: len(f.sites)}
	for i, h := range healths {
		c := healthCount{Health: h, N: f.counts[i], Link: overviewQuery{Health: h}.link(1)}
		if h == q.Health {
			c.Link = "/"
		}
		p.Counts = append(p.Counts, c)
	}
	kept := f.matching(q)
	p.Matching = len(kept)
	p.Pages = max(1, (len(kept)+overviewPerPage-1)/overviewPerPage)
	p.PageNo = min(q.Page, p.Pages)
	from := (p.PageNo - 1) * overviewPerPage
	shown := kept[from:min(len(kept), from+overviewPerPage)]
	p.First, p.Last = from+1, from+len(shown)
	for _, fs := range shown {
		row, err := s.fleetRow(ctx, fs)
		if err != nil {
			return nil, time.Time{}, err
		}
		p.Rows = append(p.Rows, row)
	}
	return p, f.until, nil
}

// matching returns the sites of the fleet that q keeps, in the fleet's order.
func (f *fleet) matching(q overviewQuery) []fleetSite {
	if q.Search == "" && q.Health == "" {
		return f.sites
	}
	search := strings.ToLower(q.Search)
	var out []fleetSite
	for _, fs := range f.sites {
		if q.Health != "" && healths[fs.health] != q.Health {
			continue
		}
		if strings.Contains(fs.id, search) || strings.Contains(fs.host, search) {
			out = append(out, fs)
		}
	}
	return out
}

// readFleet reads every site's status, its URLs failed now and its last 30 days, and sorts the
// sites so that what needs attention comes first.
func (s *Server) readFleet(ctx context.Context) (*fleet, error) {
	all, err := s.readStatuses(ctx)
	if err != nil {
		return nil, err
	}
	since := s.now().UTC().AddDate(0, 0, -(sparkDays - 1))
	days, err := s.state.SiteDays(ctx, since)
	if err != nil {
		return nil, err
	}
	failed, err := s.state.FailedCountsAll(ctx)
	if err != nil {
		return nil, err
	}
	spark, month := map[string][2][]int{}, map[string]map[string][2]int{}
	for _, d := range days {
		sf, ok := spark[d.Site]
		if !ok {
			sf = [2][]int{make([]int, sparkDays), make([]int, sparkDays)}
			spark[d.Site], month[d.Site] = sf, map[string][2]int{}
		}
		if i := dayIndex(since, d.Day); i >= 0 && i < sparkDays {
			sf[0][i] += d.Successful
			sf[1][i] += d.Failed
			m := month[d.Site][d.Channel]
			month[d.Site][d.Channel] = [2]int{m[0] + d.Successful, m[1] + d.Failed}
		}
	}
	entries := map[string]sites.Entry{}
	for _, e := range s.sites.All() {
		entries[e.Site.ID] = e
	}
	f := &fleet{counts: make([]int, len(healths)), until: nextRun(all)}
	for _, st := range all {
		e, ok := entries[st.SiteID]
		if !ok { // deleted since the statuses were read
			continue
		}
		fs := fleetSite{entry: e, status: st, failed: failed[st.SiteID], spark: spark[st.SiteID], month: month[st.SiteID], id: strings.ToLower(st.SiteID)}
		if u, err := url.Parse(e.Site.BaseURL); err == nil {
			fs.host = strings.ToLower(u.Hostname())
		}
		fs.health = health(st, fs.failed)
		f.counts[fs.health]++
		f.sites = append(f.sites, fs)
	}
	slices.SortStableFunc(f.sites, func(a, b fleetSite) int {
		return cmp.Or(cmp.Compare(a.health, b.health), cmp.Compare(a.status.SiteID, b.status.SiteID))
	})
	return f, nil
}

// fleetRow reads what the overview shows of a site of the fleet beyond what the fleet holds.
func (s *Server) fleetRow(ctx context.Context, fs fleetSite) (*overviewRow, error) {
	statuses, err := s.recentFailures(ctx, fs.status)
	if err != nil {
		return nil, err
	}
	lasts, err := s.channelsLastRuns(ctx, fs.entry, fs.status)
	if err != nil {
		return nil, err
	}
	row := s.overviewRow(fs.entry, fs.status, statuses, fs.failed, lasts)
	sf := fs.spark
	if sf[0] == nil {
		sf = [2][]int{make([]int, sparkDays), make([]int, sparkDays)}
	}
	row.Month = monthOf(fs.month)
	row.Spark = sparkline(fs.status.SiteID+": URLs accepted (up) and failed (down) per day over 30 days, over the channels: "+monthWords(row.Month), sf[0], sf[1])
	return row, nil
}

// channelMonth is what a channel accepted and failed over the last sparkDays.
type channelMonth struct {
	Name             string
	Accepted, Failed int
}

// monthOf lists the channels that accepted or failed URLs in month, in the usual order: each
// channel is told apart, as a page accepted by IndexNow and by Bing is one page, not two.
func monthOf(month map[string][2]int) []channelMonth {
	var out []channelMonth
	for _, name := range config.Channels {
		if m := month[name]; m != [2]int{} {
			out = append(out, channelMonth{Name: name, Accepted: m[0], Failed: m[1]})
		}
	}
	return out
}

// monthWords says what each channel accepted and failed: "indexnow 17 accepted, 2 failed; bing
// 10 accepted"; "nothing accepted or failed" without any.
func monthWords(month []channelMonth) string {
	if len(month) == 0 {
		return "nothing accepted or failed"
	}
	parts := make([]string, len(month))
	for i, m := range month {
		parts[i] = m.Name + " " + human.Int(m.Accepted) + " accepted"
		if m.Failed > 0 {
			parts[i] += ", " + human.Int(m.Failed) + " failed"
		}
	}
	return strings.Join(parts, "; ")
}
