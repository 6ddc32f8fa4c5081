package kvstate

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// statsTTL keeps daily statistics as long as the SQL store does.
const statsTTL = 91 * 24 * time.Hour

// counts are the statistics of one channel and endpoint on one day.
type counts struct {
	Requests   int `json:"requests,omitempty"`
	Total      int `json:"total"`
	Successful int `json:"successful"`
	Failed     int `json:"failed"`
}

// dayStats is the value of `stats:{id}:{day}`: by channel, by endpoint ("" for the channel's
// URL-level outcomes).
type dayStats struct {
	Channels map[string]map[string]*counts `json:"channels"`
	dirty    bool
}

func statsKey(site, day string) string { return "stats:" + site + ":" + day }

func dayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// statsOf returns a site's statistics of day, read once; s.mu is held.
func (s *State) statsOf(ctx context.Context, st *site, day string) (*dayStats, error) {
	if d := st.stats[day]; d != nil {
		return d, nil
	}
	d := &dayStats{}
	if _, err := s.getOrDrop(ctx, statsKey(st.id, day), d, "the site's statistics of the day start again"); err != nil {
		return nil, err
	}
	if d.Channels == nil {
		d.Channels = map[string]map[string]*counts{}
	}
	st.stats[day] = d
	return d, nil
}

// writeStats writes a day's statistics when they changed; s.mu is held.
func (s *State) writeStats(ctx context.Context, st *site, day string, d *dayStats) error {
	if !d.dirty {
		return nil
	}
	if err := s.putJSON(ctx, statsKey(st.id, day), d, statsTTL); err != nil {
		return err
	}
	d.dirty = false
	return nil
}

// add counts URLs of a channel and endpoint; a successful one notes the channel's last success.
func (s *State) add(ctx context.Context, st *site, now time.Time, ch, endpoint string, requests, ok, failed int) error {
	d, err := s.statsOf(ctx, st, dayOf(now))
	if err != nil {
		return err
	}
	byEndpoint := d.Channels[ch]
	if byEndpoint == nil {
		byEndpoint = map[string]*counts{}
		d.Channels[ch] = byEndpoint
	}
	c := byEndpoint[endpoint]
	if c == nil {
		c = &counts{}
		byEndpoint[endpoint] = c
	}
	c.Requests += requests
	c.Total += ok + failed
	c.Successful += ok
	c.Failed += failed
	d.dirty = true
	if ok > 0 && endpoint == "" {
		m, err := s.metaOf(ctx, st)
		if err != nil {
			return err
		}
		if m.LastSuccess == nil {
			m.LastSuccess = map[string]int64{}
		}
		m.LastSuccess[ch], m.dirty = now.UnixMilli(), true
	}
	return nil
}

// RecordRequests counts requests in the day's per-endpoint statistics.
func (s *State) RecordRequests(ctx context.Context, site string, now time.Time, reqs []channel.Request) (err error) {
	defer failed(&err, "recording requests", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	for _, r := range reqs {
		n, ok, bad := r.Counts()
		if err := s.add(ctx, st, now, r.Channel, r.Endpoint, n, ok, bad); err != nil {
			return err
		}
	}
	return nil
}

// ChannelDays sums the URL-level statistics of the days from since (inclusive) per day and
// channel, oldest first: of one site, or of every site when site is "". Days are listed by their
// keys: one list, then a read a day and site.
func (s *State) ChannelDays(ctx context.Context, since time.Time, site string) (_ []model.ChannelDay, err error) {
	defer failed(&err, "reading daily statistics", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := "stats:"
	if site != "" {
		prefix = statsKey(site, "")
	}
	keys, err := s.list(ctx, prefix)
	if err != nil {
		return nil, err
	}
	sums := map[[2]string]*model.ChannelDay{}
	first := dayOf(since)
	for _, k := range keys {
		id, day, ok := splitStatsKey(k.Name)
		if !ok || day < first || site != "" && id != site {
			continue
		}
		d, err := s.statsOf(ctx, s.siteOf(id), day)
		if err != nil {
			return nil, err
		}
		for ch, byEndpoint := range d.Channels {
			c := byEndpoint[""]
			if c == nil {
				continue
			}
			sum := sums[[2]string{day, ch}]
			if sum == nil {
				sum = &model.ChannelDay{Day: day, Channel: ch}
				sums[[2]string{day, ch}] = sum
			}
			sum.Total, sum.Successful, sum.Failed = sum.Total+c.Total, sum.Successful+c.Successful, sum.Failed+c.Failed
		}
	}
	out := make([]model.ChannelDay, 0, len(sums))
	for _, d := range sums {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Day != out[j].Day {
			return out[i].Day < out[j].Day
		}
		return out[i].Channel < out[j].Channel
	})
	return out, nil
}

// splitStatsKey reads `stats:{id}:{day}`; an id may hold colons, a day never does.
func splitStatsKey(k string) (site, day string, ok bool) {
	rest, ok := strings.CutPrefix(k, "stats:")
	i := strings.LastIndexByte(rest, ':')
	if !ok || i < 0 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// list lists keys; s.mu is held.
func (s *State) list(ctx context.Context, prefix string) ([]Key, error) {
	if err := s.count(func(o *Ops) { o.Lists++ }); err != nil {
		return nil, err
	}
	return s.kv.List(ctx, prefix)
}
