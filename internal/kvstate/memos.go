package kvstate

import (
	"context"
	"time"

	"github.com/sitepush/sitepush/internal/channel"

	"github.com/sitepush/sitepush/internal/model"
)

// CatalogEmpty reports false: the Worker looks every page up (SyncCatalog), its catalogue shards
// read once a run anyway.
func (s *State) CatalogEmpty(context.Context, string) (bool, error) { return false, nil }

// AddPages records pages as SyncCatalog does.
func (s *State) AddPages(ctx context.Context, site string, now time.Time, pages []channel.Page, dryRun bool) error {
	_, err := s.SyncCatalog(ctx, site, now, pages, nil, dryRun)
	return err
}

// SitemapMemos returns no memo: the Worker reads and diffs every sitemap at each run.
func (s *State) SitemapMemos(context.Context, string) (map[string]model.SitemapMemo, error) {
	return nil, nil
}

// SitemapPages returns nil: no memo is kept.
func (s *State) SitemapPages(context.Context, string, string) ([]byte, error) { return nil, nil }

// SaveSitemapMemos keeps nothing.
func (s *State) SaveSitemapMemos(context.Context, string, []model.SitemapMemo) error { return nil }

// PendingDeliveries is never asked for, since no memo is kept.
func (s *State) PendingDeliveries(context.Context, string, []string, time.Time, time.Duration, bool) ([]model.Pending, error) {
	return nil, nil
}
