package server

import (
	"context"
	"net/http"
	"strconv"

	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// urlsPerPage is how many of the URLs a run names its page lists at a time: a run that named
// thousands is read a page at a time, each quick to load on a phone.
const urlsPerPage = 200

// runURLs is what a run's page lists of the URLs the run names (docs/runs.md, "The URLs of a
// run"): one page of them, grouped by channel, and per channel how many the run answered that
// it does not name.
type runURLs struct {
	Groups []urlGroup
	// PageNo is this page, of Pages; Total the URLs named in all.
	PageNo, Pages, Total int
	// Unlisted counts, by channel, the URLs the run answered beyond those it names; Cap is how
	// many a run names at most per channel and outcome.
	Unlisted []unlisted
	Cap      int
}

// urlGroup is the URLs of one channel on the page, by outcome.
type urlGroup struct {
	Channel  string
	Outcomes []urlOutcome
}

// urlOutcome is the URLs of one channel with one outcome on the page, by detail: Named counts
// those the run names with it on every page, OnPage those on this one.
type urlOutcome struct {
	Outcome       string
	Named, OnPage int
	Details       []urlDetail
}

// urlDetail is URLs of one outcome with one detail — an engine's answer, a preflight's reason,
// said once for all the URLs it concerns — next to each other on the page.
type urlDetail struct {
	Detail string
	URLs   []string
}

// unlisted is how many URLs a channel answered that the run does not name.
type unlisted struct {
	Channel  string
	Answered int
	More     int
}

// runURLsOf reads the page of the URLs run rec names that r asks for (?page=N, taken within the
// pages there are): from the record of a run going, else from the state.
func (s *Server) runURLsOf(ctx context.Context, r *http.Request, rec model.Record, live bool) (runURLs, error) {
	out := runURLs{Cap: runner.MaxRunURLs}
	counts := map[model.URLKey]int{}
	if live {
		rec.URLs = runner.SortedURLs(rec.URLs) // a run going sorts its list as it ends
		for _, u := range rec.URLs {
			counts[model.URLKey{Channel: u.Channel, Outcome: u.Outcome}]++
		}
	} else {
		var err error
		if counts, err = s.state.RunURLCounts(ctx, rec.ID); err != nil {
			return out, err
		}
	}
	named := map[string]int{}
	for k, n := range counts {
		named[k.Channel] += n
		out.Total += n
	}
	out.Pages = max(1, (out.Total+urlsPerPage-1)/urlsPerPage)
	out.PageNo, _ = strconv.Atoi(r.URL.Query().Get("page"))
	out.PageNo = min(max(1, out.PageNo), out.Pages)
	from := (out.PageNo - 1) * urlsPerPage
	var page []model.RunURL
	if live {
		page = rec.URLs[from:min(from+urlsPerPage, len(rec.URLs))]
	} else {
		var err error
		if page, err = s.state.RunURLs(ctx, rec.ID, from, urlsPerPage); err != nil {
			return out, err
		}
	}
	out.Groups = groupURLs(page, counts)
	out.Unlisted = unlistedOf(rec, named)
	return out, nil
}

// groupURLs groups a page of URLs, sorted as a run sorts them (by channel, outcome, detail), by
// channel, then by outcome — with how many the run names with it in all (counts) — then in runs
// of one detail.
func groupURLs(page []model.RunURL, counts map[model.URLKey]int) []urlGroup {
	var out []urlGroup
	for _, u := range page {
		if len(out) == 0 || out[len(out)-1].Channel != u.Channel {
			out = append(out, urlGroup{Channel: u.Channel})
		}
		g := &out[len(out)-1]
		if n := len(g.Outcomes); n == 0 || g.Outcomes[n-1].Outcome != u.Outcome {
			g.Outcomes = append(g.Outcomes, urlOutcome{Outcome: u.Outcome, Named: counts[model.URLKey{Channel: u.Channel, Outcome: u.Outcome}]})
		}
		o := &g.Outcomes[len(g.Outcomes)-1]
		if n := len(o.Details); n == 0 || o.Details[n-1].Detail != u.Detail {
			o.Details = append(o.Details, urlDetail{Detail: u.Detail})
		}
		d := &o.Details[len(o.Details)-1]
		d.URLs, o.OnPage = append(d.URLs, u.URL), o.OnPage+1
	}
	return out
}

// unlistedOf says, per channel of rec in the usual order, how many of the URLs it answered —
// submitted, failed, held back by a preflight — the run does not name, given how many it names.
func unlistedOf(rec model.Record, named map[string]int) []unlisted {
	var out []unlisted
	for _, name := range channelsOf(rec) {
		st := rec.Channels[name]
		answered := st.Answered()
		if more := answered - named[name]; more > 0 {
			out = append(out, unlisted{Channel: name, Answered: answered, More: more})
		}
	}
	return out
}
