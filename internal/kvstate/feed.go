package kvstate

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// feedState is the value of `feed:{id}`: whether the site's feed was built, when it last
// changed, and its items — a feed keeps its newest maxItems, and those first seen in the last
// keepDays: a small value.
type feedState struct {
	Built   int64      `json:"built,omitempty"` // Unix ms; 0 before the first run
	Changed int64      `json:"changed,omitempty"`
	Items   []feedItem `json:"items,omitempty"`

	dirty bool
}

// feedItem is a model.FeedItem as kept.
type feedItem struct {
	Hash        int64  `json:"hash"`
	URL         string `json:"url"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Published   int64  `json:"published"`
	FirstSeen   int64  `json:"firstSeen"`
	Titled      bool   `json:"titled,omitempty"`
}

func feedKey(site string) string { return "feed:" + site }

// feedOf returns a site's feed, read once; s.mu is held. A value this sitepush cannot read is
// model.ErrUnusableFeed: the feed is built again.
func (s *State) feedOf(ctx context.Context, st *site) (*feedState, error) {
	if st.feed != nil {
		return st.feed, nil
	}
	f := &feedState{}
	if _, err := s.getJSON(ctx, feedKey(st.id), f); err != nil {
		return nil, fmt.Errorf("%w: %w", model.ErrUnusableFeed, err)
	}
	st.feed = f
	return f, nil
}

// writeFeed writes a site's feed when it changed; s.mu is held.
func (s *State) writeFeed(ctx context.Context, st *site) error {
	if st.feed == nil || !st.feed.dirty {
		return nil
	}
	if err := s.putJSON(ctx, feedKey(st.id), st.feed, 0); err != nil {
		return err
	}
	st.feed.dirty = false
	return nil
}

// FeedState tells whether site's feed was built and when it last changed.
func (s *State) FeedState(ctx context.Context, site string) (_ bool, _ time.Time, err error) {
	defer failed(&err, "reading the feed state", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.feedOf(ctx, s.siteOf(site))
	if err != nil {
		return false, time.Time{}, err
	}
	return f.Built != 0, fromMS(f.Changed), nil
}

// SaveFeedItems adds items to site's feed, or improves the title of items it has, and marks the
// feed changed when it did change. An item to retitle is never added, and a title read from its
// page is never replaced by one made of its URL.
func (s *State) SaveFeedItems(ctx context.Context, site string, items []model.FeedItem, now time.Time) (err error) {
	defer failed(&err, "saving feed items", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.feedOf(ctx, s.siteOf(site))
	if err != nil {
		return err
	}
	index := make(map[int64]int, len(f.Items))
	for i, it := range f.Items {
		index[it.Hash] = i
	}
	changed := false
	for _, it := range items {
		i, ok := index[it.Hash]
		switch {
		case !ok && it.Retitle:
		case !ok:
			f.Items = append(f.Items, feedItem{Hash: it.Hash, URL: it.URL, Title: it.Title, Description: it.Description,
				Published: it.Published.UnixMilli(), FirstSeen: it.FirstSeen.UnixMilli(), Titled: it.Titled})
			index[it.Hash] = len(f.Items) - 1
			changed = true
		default:
			old := &f.Items[i]
			if (it.Titled || !old.Titled) && (old.Title != it.Title || old.Description != it.Description || old.Titled != it.Titled) {
				old.Title, old.Description, old.Titled = it.Title, it.Description, it.Titled
				if !it.Retitle {
					old.URL = it.URL
				}
				changed = true
			}
		}
	}
	if changed {
		f.Changed, f.dirty = now.UnixMilli(), true
	}
	return nil
}

// MarkFeedBuilt records that site's feed has had its first run.
func (s *State) MarkFeedBuilt(ctx context.Context, site string, now time.Time) (err error) {
	defer failed(&err, "marking the feed built", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.feedOf(ctx, s.siteOf(site))
	if err != nil {
		return err
	}
	if f.Built == 0 && f.Changed == 0 {
		f.Changed = now.UnixMilli()
	}
	f.Built, f.dirty = now.UnixMilli(), true
	return nil
}

// sorted orders a feed's items newest first: by published, then first seen, then URL.
func (f *feedState) sorted() {
	sort.SliceStable(f.Items, func(i, j int) bool {
		a, b := f.Items[i], f.Items[j]
		if a.Published != b.Published {
			return a.Published > b.Published
		}
		if a.FirstSeen != b.FirstSeen {
			return a.FirstSeen > b.FirstSeen
		}
		return a.URL < b.URL
	})
}

// FeedItems returns site's newest limit items, newest first.
func (s *State) FeedItems(ctx context.Context, site string, limit int) (_ []model.FeedItem, err error) {
	defer failed(&err, "reading feed items", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.feedOf(ctx, s.siteOf(site))
	if err != nil {
		return nil, err
	}
	f.sorted()
	var out []model.FeedItem
	for _, it := range f.Items[:min(limit, len(f.Items))] {
		out = append(out, model.FeedItem{Hash: it.Hash, URL: it.URL, Title: it.Title, Description: it.Description,
			Published: fromMS(it.Published), FirstSeen: fromMS(it.FirstSeen), Titled: it.Titled})
	}
	return out, nil
}

// PruneFeed drops site's items that are both beyond the newest keep and first seen before before.
func (s *State) PruneFeed(ctx context.Context, site string, keep int, before, now time.Time) (_ int, err error) {
	defer failed(&err, "pruning the feed", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.feedOf(ctx, s.siteOf(site))
	if err != nil {
		return 0, err
	}
	f.sorted()
	kept := f.Items[:min(keep, len(f.Items))]
	pruned := 0
	for _, it := range f.Items[len(kept):] {
		if it.FirstSeen < before.UnixMilli() {
			pruned++
			continue
		}
		kept = append(kept, it)
	}
	if pruned > 0 {
		f.Items, f.Changed, f.dirty = kept, now.UnixMilli(), true
	}
	return pruned, nil
}

// ResetFeedState forgets that site's feed was built, so that it is built again as on a first
// run. Its items stay, and so do the pages it knew: they never come back as new.
func (s *State) ResetFeedState(ctx context.Context, site string) (err error) {
	defer failed(&err, "resetting the feed state", site)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.siteOf(site)
	f, err := s.feedOf(ctx, st)
	if err != nil {
		// An unusable value is what a reset is for: it starts afresh.
		f = &feedState{}
		st.feed = f
	}
	f.Built, f.Changed, f.dirty = 0, 0, true
	return nil
}
