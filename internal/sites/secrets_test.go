package sites

import (
	"encoding/json"
	"errors"
	"fmt"
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

// TestGoogleCredentialsGoToNoNewEndpoint: the Google credentials are a key file of the server's,
// which no request can give: whichever site holds them — a site of the file, an API site, or
// none — a site of the API uses them only with an endpoint the configuration file gives them,
// or the one it had. Else its endpoint would get a working access token.
func TestGoogleCredentialsGoToNoNewEndpoint(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), `defaults:
  google: {endpoint: https://googleapis.example}
sites:
  - id: real
    sitemaps: [https://real.example/sitemap.xml]
    feed: {enabled: true}
    bing: {enabled: true, apiKey: file-bing-key}
    google: {enabled: true, credentials: /etc/sitepush/real.json, property: "sc-domain:real.example", endpoint: https://proxy.example}
`)
	site := func(id, credentials, endpoint string) []byte {
		g := fmt.Sprintf(`"enabled": true, "credentials": %q, "property": "sc-domain:x.example"`, credentials)
		if endpoint != "" {
			g += fmt.Sprintf(`, "endpoint": %q`, endpoint)
		}
		return fmt.Appendf(nil, `{"id": %q, "sitemaps": ["https://x.example/s.xml"], "feed": {"enabled": true}, "google": {%s}}`, id, g)
	}
	for _, tc := range []struct {
		name         string
		body         []byte
		refused      bool
		fieldAndPath string
	}{
		{"a file site's credentials, a new endpoint", site("a", "/etc/sitepush/real.json", "https://thief.example"), true, `google.endpoint "https://thief.example"`},
		{"credentials no site holds, a new endpoint", site("b", "/etc/sitepush/other.json", "https://thief.example"), true, `"/etc/sitepush/other.json"`},
		{"a file site's credentials, the defaults' endpoint", site("c", "/etc/sitepush/real.json", ""), false, ""},
		{"a file site's credentials, where the file sends them", site("d", "/etc/sitepush/real.json", "https://proxy.example"), false, ""},
		{"other credentials, where the file sends the file site's", site("e", "/etc/sitepush/other.json", "https://proxy.example"), true, "google.credentials"},
	} {
		_, err := r.Create(ctx, tc.body, t0)
		switch {
		case !tc.refused && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.refused && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "access token of the Google credentials") ||
			!strings.Contains(err.Error(), tc.fieldAndPath)):
			t.Errorf("%s: %v; want a refusal naming the credentials and %s", tc.name, err, tc.fieldAndPath)
		}
	}

	// A PUT that moves the endpoint of an API site, or of the file's site: refused as well.
	for _, id := range []string{"c", "real"} {
		err := getEditPut(t, r, id, func(s map[string]any) { block(s, "google")["endpoint"] = "https://thief.example/put" })
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "access token of the Google credentials") {
			t.Errorf("site %s: a PUT moving google.endpoint: %v; want a refusal naming the credentials", id, err)
		}
	}
	if err := getEditPut(t, r, "c", func(s map[string]any) { block(s, "google")["inspectPerDay"] = 50 }); err != nil {
		t.Errorf("another change of the API site: %v", err)
	}
	if err := getEditPut(t, r, "real", func(s map[string]any) { block(s, "google")["inspectPerDay"] = 50 }); !errors.Is(err, ErrFileSite) {
		t.Errorf("another change of the file's site, its Bing key given back masked: %v; want it refused as the file's", err)
	}
}
