package store_test

import (
	"errors"
	"fmt"
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
	if v, err := s.ReplaceSite(ctx, "blog", []byte(`{"id":"blog","schedule":"@daily"}`), later, t0); err != nil || !v.Equal(later) {
		t.Fatalf("replaced: version %v, %v", v, err)
	}
	// A change made from the version before is refused: another came first.
	if _, err := s.ReplaceSite(ctx, "blog", []byte(`{"id":"blog"}`), later.Add(time.Minute), t0); !errors.Is(err, store.ErrSiteChanged) {
		t.Errorf("replacing from an old version: %v", err)
	}
	if _, err := s.ReplaceSite(ctx, "nope", []byte(`{}`), later, t0); !errors.Is(err, store.ErrNoSite) {
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
	if v, err := s.ReplaceSite(ctx, "BLOG", []byte(`{"id":"BLOG","schedule":"@hourly"}`), t0, t0); err != nil || !v.Equal(t0.Add(time.Millisecond)) {
		t.Errorf("a change within the version's millisecond: version %v, %v; want the version after", v, err)
	}
	if _, err := s.ReplaceSite(ctx, "BLOG", []byte(`{"id":"BLOG"}`), t0, t0); !errors.Is(err, store.ErrSiteChanged) {
		t.Errorf("a second change within the same millisecond, from the first version: %v", err)
	}
}

// TestSiteVersionsAndSitesByID reads what a registry needs to follow the stored sites: every
// site's version without its configuration, then only the sites whose version it does not hold.
func TestSiteVersionsAndSitesByID(t *testing.T) {
	s := storetest.Open(t)
	if v, err := s.SiteVersions(ctx); err != nil || len(v) != 0 {
		t.Fatalf("no sites: %v, %v", v, err)
	}
	if got, err := s.SitesByID(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("no ids: %v, %v", got, err)
	}
	// More sites than the store's statements take as parameters: the ids are one parameter.
	var ids []string
	for i := range 1201 {
		id := fmt.Sprintf("site-%04d", i)
		if err := s.CreateSite(ctx, id, fmt.Appendf(nil, `{"id":%q}`, id), t0.Add(time.Duration(i)*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	later := t0.Add(time.Hour)
	if _, err := s.ReplaceSite(ctx, "site-0007", []byte(`{"id":"site-0007","schedule":"@daily"}`), later, t0.Add(7*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	versions, err := s.SiteVersions(ctx)
	if err != nil || len(versions) != 1201 {
		t.Fatalf("versions: %d, %v", len(versions), err)
	}
	if v := versions["site-0007"]; !v.CreatedAt.Equal(t0.Add(7*time.Millisecond)) || !v.UpdatedAt.Equal(later) {
		t.Errorf("the version of a replaced site: %+v", v)
	}
	if v := versions["site-1200"]; !v.CreatedAt.Equal(t0.Add(1200*time.Millisecond)) || !v.UpdatedAt.Equal(v.CreatedAt) {
		t.Errorf("the version of a new site: %+v", v)
	}
	got, err := s.SitesByID(ctx, append(ids[3:1201], "gone", "SITE-0001"))
	if err != nil || len(got) != 1198 || got[0].ID != "site-0003" || got[1197].ID != "site-1200" {
		t.Fatalf("sites by id: %d, %v", len(got), err)
	}
	if st := got[4]; st.ID != "site-0007" || string(st.Config) != `{"id":"site-0007","schedule":"@daily"}` || !st.UpdatedAt.Equal(later) {
		t.Errorf("a replaced site: %+v", st)
	}
}
