package sites

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/store/storetest"
)

func createSite(t *testing.T, r *Registry, id string) {
	t.Helper()
	if _, err := r.Create(ctx, fmt.Appendf(nil, `{"id": %q, "sitemaps": ["https://%s.example/s.xml"], "feed": {"enabled": true}}`, id, id), t0); err != nil {
		t.Fatal(err)
	}
}

// TestAnAnswerOfAllNeverChanges: what All and Sites answer is shared and never changed — also an
// answer read after a change copied the lists (it once left them marked unshared, and the next
// change moved the sites of the slice the caller held).
func TestAnAnswerOfAllNeverChanges(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), fileConfig)
	createSite(t, r, "b")
	createSite(t, r, "d")
	r.All()               // built: shared
	createSite(t, r, "c") // copies: not shared any more
	createSite(t, r, "e") // grows in place: room for more
	held := r.All()       // fast path: shared stays false
	before := slices.Clone(siteIDs(held))
	createSite(t, r, "a") // inserted in place, under the caller
	if got := siteIDs(held); !slices.Equal(got, before) {
		t.Errorf("a slice All answered changed under its caller: was %q, now %q", before, got)
	}
	heldSites := r.Sites()
	beforeSites := make([]string, len(heldSites))
	for i, s := range heldSites {
		beforeSites[i] = s.ID
	}
	if err := r.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	for i, s := range heldSites {
		if s.ID != beforeSites[i] {
			t.Errorf("a slice Sites answered changed under its caller: was %q, now [%d]=%q", beforeSites, i, s.ID)
			break
		}
	}
}

// TestReadingWhileCreating: the scheduler and the server go through Sites while the API creates
// sites: each answer lists each site once (and go test -race finds no write into it).
func TestReadingWhileCreating(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), fileConfig)
	createSite(t, r, "m")
	r.All()
	createSite(t, r, "n")
	done, stop := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			seen := map[string]bool{}
			for _, s := range r.Sites() {
				if seen[s.ID] {
					t.Errorf("site %q listed twice in one answer of Sites", s.ID)
					return
				}
				seen[s.ID] = true
			}
		}
	}()
	for i := range 30 {
		createSite(t, r, fmt.Sprintf("a%02d", i))
	}
	close(stop)
	<-done
}

// TestAnUnknownSiteIsNamed: a replace or delete of a site that does not exist says which.
func TestAnUnknownSiteIsNamed(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), fileConfig)
	_, err := r.Replace(ctx, "nowhere", []byte(`{"id": "nowhere", "sitemaps": ["https://n.example/s.xml"]}`), t0)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `no site "nowhere"`) {
		t.Errorf("replace: %v", err)
	}
	if err := r.Delete(ctx, "nowhere"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `no site "nowhere"`) {
		t.Errorf("delete: %v", err)
	}
}
