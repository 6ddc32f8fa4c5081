package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

func TestSites(t *testing.T) {
	s := storetest.Open(t)
	if err := s.CreateSite(ctx, "blog", []byte(`{"id":"blog"}`), t0); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSite(ctx, "Blog", []byte(`{"id":"Blog"}`), t0); !errors.Is(err, store.ErrSiteExists) {
		t.Errorf("an id that differs only by case: %v", err)
	}
	later := t0.Add(time.Hour)
	if err := s.ReplaceSite(ctx, "blog", []byte(`{"id":"blog","schedule":"@daily"}`), later, t0); err != nil {
		t.Fatal(err)
	}
	// A change made from the version before is refused: another came first.
	if err := s.ReplaceSite(ctx, "blog", []byte(`{"id":"blog"}`), later.Add(time.Minute), t0); !errors.Is(err, store.ErrSiteChanged) {
		t.Errorf("replacing from an old version: %v", err)
	}
	if err := s.ReplaceSite(ctx, "nope", []byte(`{}`), later, t0); !errors.Is(err, store.ErrNoSite) {
		t.Errorf("replacing a missing site: %v", err)
	}
	s.CreateSite(ctx, "a-site", []byte(`{"id":"a-site"}`), t0)
	got, err := s.Sites(ctx)
	if err != nil || len(got) != 2 || got[0].ID != "a-site" || got[1].ID != "blog" || string(got[1].Config) != `{"id":"blog","schedule":"@daily"}` ||
		!got[1].CreatedAt.Equal(t0) || !got[1].UpdatedAt.Equal(later) {
		t.Fatalf("sites %+v, %v", got, err)
	}
	if err := s.DeleteSite(ctx, "blog"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSite(ctx, "blog"); !errors.Is(err, store.ErrNoSite) {
		t.Errorf("deleting twice: %v", err)
	}
	if err := s.CreateSite(ctx, "BLOG", []byte(`{"id":"BLOG"}`), t0); err != nil {
		t.Errorf("the id is free again: %v", err)
	}
	// Two changes within a millisecond: the version still moves, so the second one's base is stale.
	s.ReplaceSite(ctx, "BLOG", []byte(`{"id":"BLOG","schedule":"@hourly"}`), t0, t0)
	if err := s.ReplaceSite(ctx, "BLOG", []byte(`{"id":"BLOG"}`), t0, t0); !errors.Is(err, store.ErrSiteChanged) {
		t.Errorf("a second change within the same millisecond, from the first version: %v", err)
	}
}
