package sites

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

// openRaw returns a store and a plain connection to its database, to change a stored site
// behind the registry's back.
func openRaw(t *testing.T) (*store.Store, *sql.DB) {
	t.Helper()
	state := storetest.State(t)
	st, err := store.Open(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, storetest.Raw(t, state)
}

// damage replaces a stored site's configuration with one that does not load, keeping its
// version: a registry that reads it again logs that it does not load and leaves it out.
func damage(t *testing.T, db *sql.DB, id string) {
	t.Helper()
	if _, err := db.Exec(`UPDATE sites SET config = '{"id": "`+id+`", "sitemaps": []}' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
}

func TestLoadReadsOnlyWhatChanged(t *testing.T) {
	st, db := openRaw(t)
	r, log := newRegistry(t, st, fileConfig)
	var told [][]string
	r.OnChange = func(ids []string) { told = append(told, slices.Sorted(slices.Values(ids))) }
	for _, id := range []string{"a", "b", "c"} {
		if _, err := r.Create(ctx, fmt.Appendf(nil, `{"id": %q, "sitemaps": ["https://%s.example/s.xml"], "feed": {"enabled": true}}`, id, id), t0); err != nil {
			t.Fatal(err)
		}
	}
	// A site whose version did not change is not read again: its damage goes unseen.
	damage(t, db, "a")
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Get("a"); !ok || strings.Contains(log.String(), "does not load") {
		t.Fatalf("a site whose version is the same was read again; log: %s", log)
	}
	// Another instance changes b, deletes c and creates d, its clock an hour behind: each is read.
	other, _ := newRegistry(t, st, fileConfig)
	if _, err := other.Replace(ctx, "b", []byte(`{"sitemaps": ["https://b.example/new.xml"], "feed": {"enabled": true}}`), t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(ctx, "C"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Create(ctx, []byte(`{"id": "d", "sitemaps": ["https://d.example/s.xml"], "feed": {"enabled": true}}`), t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	told = nil
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	b, okB := r.Get("b")
	_, okC := r.Get("c")
	d, okD := r.Get("D")
	if !okB || b.Site.Sitemaps[0] != "https://b.example/new.xml" || !b.UpdatedAt.Equal(t0.Add(time.Millisecond)) || okC || !okD ||
		!d.CreatedAt.Equal(t0.Add(-time.Hour)) {
		t.Errorf("after another instance's changes: b %v %+v, c %v, d %v %+v", okB, b, okC, okD, d)
	}
	if want := [][]string{{"b", "c", "d"}}; !slices.EqualFunc(told, want, slices.Equal) {
		t.Errorf("told %q, want %q", told, want)
	}
	if ids := siteIDs(r.All()); !slices.Equal(ids, []string{"blog", "a", "b", "d"}) {
		t.Errorf("all: %q", ids)
	}
	// Nothing changed: nothing is told.
	told = nil
	if r.Load(ctx); told != nil {
		t.Errorf("told %q with nothing changed", told)
	}
	// The damaged site's version moves: it is read, and no longer loads.
	if _, err := db.Exec(`UPDATE sites SET updated_at = updated_at + 1 WHERE id = 'a'`); err != nil {
		t.Fatal(err)
	}
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Get("a"); ok || strings.Count(log.String(), "does not load") != 1 {
		t.Errorf("a site changed to one that does not load; log: %s", log)
	}
}

// TestAChangeTouchesOnlyItsSite creates, replaces and deletes sites among others whose stored
// configuration no longer loads, unknown to the registry: none of them is read again.
func TestAChangeTouchesOnlyItsSite(t *testing.T) {
	st, db := openRaw(t)
	r, log := newRegistry(t, st, fileConfig)
	var told [][]string
	r.OnChange = func(ids []string) { told = append(told, ids) }
	for _, id := range []string{"a", "b", "c"} {
		if _, err := r.Create(ctx, fmt.Appendf(nil, `{"id": %q, "sitemaps": ["https://%s.example/s.xml"], "feed": {"enabled": true}}`, id, id), t0); err != nil {
			t.Fatal(err)
		}
	}
	damage(t, db, "a")
	before := r.All()
	e, err := r.Create(ctx, []byte(`{"id": "z", "sitemaps": ["https://z.example/s.xml"], "feed": {"enabled": true}}`), t0.Add(time.Hour+time.Microsecond))
	if err != nil || !e.CreatedAt.Equal(t0.Add(time.Hour)) || !e.UpdatedAt.Equal(e.CreatedAt) {
		t.Fatalf("created %+v, %v; want its times as stored, to the millisecond", e, err)
	}
	e, err = r.Replace(ctx, "B", []byte(`{"sitemaps": ["https://b.example/new.xml"], "feed": {"enabled": true}}`), t0)
	if err != nil || !e.CreatedAt.Equal(t0) || !e.UpdatedAt.Equal(t0.Add(time.Millisecond)) {
		t.Fatalf("replaced %+v, %v; want the version the store wrote", e, err)
	}
	if err := r.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Get("a"); !ok || strings.Contains(log.String(), "does not load") {
		t.Errorf("a change read the other sites again; log: %s", log)
	}
	if want := [][]string{{"a"}, {"b"}, {"c"}, {"z"}, {"b"}, {"c"}}; !slices.EqualFunc(told, want, slices.Equal) {
		t.Errorf("told %q, want %q", told, want)
	}
	// What All answered before stays as it was; All answers the sites as they are now.
	if ids := siteIDs(before); !slices.Equal(ids, []string{"blog", "a", "b", "c"}) {
		t.Errorf("an earlier answer of All changed: %q", ids)
	}
	if ids := siteIDs(r.All()); !slices.Equal(ids, []string{"blog", "a", "b", "z"}) {
		t.Errorf("all: %q", ids)
	}
	// The registry's sites are those a fresh registry reads.
	again, _ := newRegistry(t, st, fileConfig)
	for _, id := range []string{"b", "z"} {
		got, _ := r.Get(id)
		want, _ := again.Get(id)
		if !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) || got.Site.Sitemaps[0] != want.Site.Sitemaps[0] {
			t.Errorf("%s: held %+v, stored %+v", id, got, want)
		}
	}
}

// TestReadingTheSitesCostsNothing: the scheduler, the metrics and the dashboard read the list of
// sites over and over; between changes it is one list, not one made again for each read.
func TestReadingTheSitesCostsNothing(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), fileConfig)
	for i := range 50 {
		if _, err := r.Create(ctx, fmt.Appendf(nil, `{"id": "s%d", "sitemaps": ["https://s%d.example/s.xml"], "feed": {"enabled": true}}`, i, i), t0); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(r.All()); n != 51 {
		t.Fatalf("%d sites", n)
	}
	if n := testing.AllocsPerRun(10, func() { r.All(); r.Sites() }); n != 0 {
		t.Errorf("reading the sites allocates %v times", n)
	}
}

func siteIDs(all []Entry) []string {
	var ids []string
	for _, e := range all {
		ids = append(ids, e.Site.ID)
	}
	return ids
}

// TestChangesWhileLoading creates sites while the registry loads and is read: none is lost, and
// each appears once (go test -race checks the rest).
func TestChangesWhileLoading(t *testing.T) {
	st := storetest.Open(t)
	r, _ := newRegistry(t, st, fileConfig)
	other, _ := newRegistry(t, st, fileConfig)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 {
			r.Load(ctx)
			r.All()
		}
	}()
	for i := range 20 {
		reg := r
		if i%2 == 1 {
			reg = other
		}
		if _, err := reg.Create(ctx, fmt.Appendf(nil, `{"id": "s%02d", "sitemaps": ["https://s%d.example/s.xml"], "feed": {"enabled": true}}`, i, i), t0); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if ids := siteIDs(r.All()); len(ids) != 21 || !slices.IsSorted(ids[1:]) || len(slices.Compact(slices.Clone(ids[1:]))) != 20 {
		t.Errorf("all: %q", ids)
	}
}

// TestTheListFollowsEveryChange makes changes here and in another instance, reading the list
// between some of them, and then compares it with the list of a registry that reads every site.
func TestTheListFollowsEveryChange(t *testing.T) {
	st := storetest.Open(t)
	r, _ := newRegistry(t, st, fileConfig)
	other, _ := newRegistry(t, st, fileConfig)
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 300 {
		reg := r
		if rng.IntN(4) == 0 {
			reg = other
		}
		id := fmt.Sprintf("s%02d", rng.IntN(40))
		body := fmt.Appendf(nil, `{"id": %q, "sitemaps": ["https://%s.example/%d.xml"], "feed": {"enabled": true}}`, id, id, step)
		switch rng.IntN(3) {
		case 0:
			reg.Create(ctx, body, t0)
		case 1:
			reg.Replace(ctx, id, body, t0)
		default:
			reg.Delete(ctx, id)
		}
		if rng.IntN(3) == 0 {
			r.All()
		}
		if step == 150 { // more changes than a Load moves one by one
			for i := range manyChanges + 1 {
				other.Create(ctx, fmt.Appendf(nil, `{"id": "m%03d", "sitemaps": ["https://m.example/s.xml"], "feed": {"enabled": true}}`, i), t0)
			}
		}
		if rng.IntN(10) == 0 {
			r.Load(ctx)
		}
	}
	r.Load(ctx)
	fresh, _ := newRegistry(t, st, fileConfig)
	want := fresh.All()
	got := r.All()
	if !slices.EqualFunc(got, want, func(a, b Entry) bool {
		return a.Site.ID == b.Site.ID && a.Site.Sitemaps[0] == b.Site.Sitemaps[0] && a.UpdatedAt.Equal(b.UpdatedAt)
	}) || !slices.Equal(r.Sites(), func() []*config.Site {
		var s []*config.Site
		for _, e := range got {
			s = append(s, e.Site)
		}
		return s
	}()) {
		t.Errorf("held %q, stored %q", siteIDs(got), siteIDs(want))
	}
}
