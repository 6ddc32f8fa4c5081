package sites

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/store/storetest"
)

// getEditPut does what a client of the API does: it takes the site as GET shows it (keys
// masked), changes it with edit, and PUTs it back.
func getEditPut(t *testing.T, r *Registry, id string, edit func(site map[string]any)) error {
	t.Helper()
	e, ok := r.Get(id)
	if !ok {
		t.Fatalf("no site %q", id)
	}
	b, _ := json.Marshal(e.Site.Masked())
	var site map[string]any
	json.Unmarshal(b, &site)
	edit(site)
	b, _ = json.Marshal(site)
	_, err := r.Replace(ctx, id, b, t0)
	return err
}

func block(site map[string]any, name string) map[string]any { return site[name].(map[string]any) }

func TestASecretOnlyGoesWhereItWent(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), fileConfig)
	if _, err := r.Create(ctx, []byte(shop), t0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(site map[string]any)
		field string // the refusal names it; "" when the change is allowed
	}{
		{"the Bing endpoint moved, the key masked", func(s map[string]any) { block(s, "bing")["endpoint"] = "https://thief.example/api" }, "bing.endpoint"},
		{"the Bing endpoint moved, the key left out", func(s map[string]any) {
			delete(block(s, "bing"), "apiKey")
			block(s, "bing")["endpoint"] = "https://thief.example/api"
		}, "bing.apiKey is required"},
		{"an IndexNow endpoint added, the key masked", func(s map[string]any) {
			block(s, "indexnow")["endpoints"] = []string{"https://api.indexnow.org/indexnow", "https://thief.example/indexnow"}
		}, "indexnow.endpoints"},
		{"another change, the keys masked", func(s map[string]any) { block(s, "bing")["dailyQuota"] = 40 }, ""},
		{"the Bing endpoint moved with the key given", func(s map[string]any) {
			block(s, "bing")["endpoint"], block(s, "bing")["apiKey"] = "https://proxy.example/api", "bing-secret-key"
		}, ""},
		{"back to the default endpoint, the key masked", func(s map[string]any) {
			block(s, "bing")["endpoint"] = "https://ssl.bing.com/webmaster/api.svc/json"
		}, ""},
		{"an IndexNow endpoint dropped, the key masked", func(s map[string]any) { block(s, "indexnow")["endpoints"] = []string{} }, "endpoints"},
	} {
		err := getEditPut(t, r, "shop", tc.edit)
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.field != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.field)):
			t.Errorf("%s: %v; want a refusal naming %s", tc.name, err, tc.field)
		}
	}
	if e, _ := r.Get("shop"); e.Site.Bing.Endpoint != "https://ssl.bing.com/webmaster/api.svc/json" || e.Site.Bing.APIKey != "bing-secret-key" {
		t.Errorf("after the changes: bing %+v", e.Site.Bing)
	}
}

func TestAnInheritedSecretStaysWithTheDefaults(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), `defaults:
  bing: {apiKey: operators-bing-key}
sites: []
`)
	thief := `{"id": "x", "sitemaps": ["https://x.example/s.xml"], "bing": {"enabled": true, "endpoint": "https://thief.example/api"}}`
	if _, err := r.Create(ctx, []byte(thief), t0); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "bing.apiKey again") {
		t.Errorf("a new site sending the defaults' Bing key elsewhere: %v", err)
	}
	own := strings.Replace(thief, `"enabled": true,`, `"enabled": true, "apiKey": "its-own-key",`, 1)
	if _, err := r.Create(ctx, []byte(own), t0); err != nil {
		t.Errorf("a new site with its own key and endpoint: %v", err)
	}
	inherits := `{"id": "y", "sitemaps": ["https://y.example/s.xml"], "bing": {"enabled": true}}`
	if _, err := r.Create(ctx, []byte(inherits), t0); err != nil {
		t.Errorf("a new site sending the defaults' key where the defaults send it: %v", err)
	}
}

// TestConcurrentChangesCannotSendASecretElsewhere races a PUT that moves the endpoint with the
// key given back masked against one that changes the key: the masked key must never be taken
// for the new one and sent to the new endpoint.
func TestConcurrentChangesCannotSendASecretElsewhere(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), "defaults:\n  bing: {apiKey: operators-bing-key}\nsites: []\n")
	base := `{"id": "a", "sitemaps": ["https://x.example/s.xml"], "bing": {"enabled": true}}`
	if _, err := r.Create(ctx, []byte(base), t0); err != nil {
		t.Fatal(err)
	}
	e, _ := r.Get("a")
	masked := e.Site.Masked().Bing.APIKey
	thief := `{"id": "a", "sitemaps": ["https://x.example/s.xml"], "bing": {"enabled": true, "endpoint": "https://thief.example/api", "apiKey": "` + masked + `"}}`
	own := `{"id": "a", "sitemaps": ["https://x.example/s.xml"], "bing": {"enabled": true, "apiKey": "zzzz-attackers-own"}}`
	for i := range 500 {
		r.Replace(ctx, "a", []byte(base), t0)
		var wg sync.WaitGroup
		wg.Go(func() { r.Replace(ctx, "a", []byte(thief), t0) })
		wg.Go(func() { r.Replace(ctx, "a", []byte(own), t0) })
		wg.Wait()
		if e, _ := r.Get("a"); e.Site.Bing.Endpoint == "https://thief.example/api" && e.Site.Bing.APIKey == "operators-bing-key" {
			t.Fatalf("attempt %d: the operator's key would go to the thief's endpoint", i)
		}
	}
}

// TestAChangeFromAStaleVersionIsRefused is two instances sharing a state: one changes a site the
// other read before; the other's change, made from what it read, is refused rather than undoing
// the first.
func TestAChangeFromAStaleVersionIsRefused(t *testing.T) {
	st := storetest.Open(t)
	a, _ := newRegistry(t, st, fileConfig)
	if _, err := a.Create(ctx, []byte(shop), t0); err != nil {
		t.Fatal(err)
	}
	b, _ := newRegistry(t, st, fileConfig) // reads the site now
	if _, err := a.Replace(ctx, "shop", []byte(strings.Replace(shop, `"apiKey": "bing-secret-key"`, `"apiKey": "new-bing-key"`, 1)), t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	_, err := b.Replace(ctx, "shop", []byte(strings.Replace(shop, `"bing": {`, `"bing": {"dailyQuota": 7, `, 1)), t0.Add(2*time.Minute))
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "GET it again") {
		t.Fatalf("a change from a stale version: %v", err)
	}
	if e, _ := b.Get("shop"); e.Site.Bing.APIKey != "new-bing-key" {
		t.Errorf("after the refusal, the instance shows key %q; want the other's change", e.Site.Bing.APIKey)
	}
}
