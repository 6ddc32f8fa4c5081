package sites

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

var (
	ctx = context.Background()
	t0  = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

const fileConfig = `defaults:
  schedule: "0 3 * * *"
  feed: {maxItems: 20}
sites:
  - id: blog
    sitemaps: [https://blog.example/sitemap.xml]
    feed: {enabled: true, out: /srv/blog/feed.xml}
`

func newRegistry(t testing.TB, st *store.Store, doc string) (*Registry, *bytes.Buffer) {
	t.Helper()
	cfg, err := config.Parse([]byte(doc), "/etc/sitepush", nil)
	if err != nil {
		t.Fatal(err)
	}
	log := &bytes.Buffer{}
	r := New(cfg, st, slog.New(slog.NewTextHandler(log, nil)))
	if err := r.Load(ctx); err != nil {
		t.Fatal(err)
	}
	return r, log
}

const shop = `{"id": "shop", "sitemaps": ["https://shop.example/sitemap.xml"],
	"indexnow": {"enabled": true, "key": "0123456789abcdef"}, "bing": {"enabled": true, "apiKey": "bing-secret-key"}}`

func TestCreateGetList(t *testing.T) {
	st := storetest.Open(t)
	r, _ := newRegistry(t, st, fileConfig)
	e, err := r.Create(ctx, []byte(shop), t0)
	if err != nil {
		t.Fatal(err)
	}
	if e.Source != FromAPI || e.Site.Schedule != "0 3 * * *" || e.Site.Feed.MaxItems != 20 || e.Site.Bing.APIKey != "bing-secret-key" ||
		!e.CreatedAt.Equal(t0) {
		t.Errorf("created %+v", e)
	}
	all := r.All()
	if len(all) != 2 || all[0].Site.ID != "blog" || all[0].Source != FromFile || all[1].Site.ID != "shop" || len(r.Sites()) != 2 {
		t.Errorf("all: %+v", all)
	}
	// Another instance, or a restart, reads it from the store.
	again, _ := newRegistry(t, st, fileConfig)
	if got, ok := again.Get("shop"); !ok || got.Site.IndexNow.Key != "0123456789abcdef" {
		t.Errorf("after a restart: %+v %v", got, ok)
	}
}

func TestChangesRefused(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), fileConfig)
	r.Create(ctx, []byte(shop), t0)
	for _, tt := range []struct {
		name string
		do   func() error
		is   error
		want string
	}{
		{"an existing id", func() error { _, err := r.Create(ctx, []byte(shop), t0); return err }, ErrExists, `a site "shop" exists`},
		{"an id in another case", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "BLOG", "sitemaps": ["https://x.example/s.xml"], "feed": {"enabled": true}}`), t0)
			return err
		}, ErrExists, `a site "blog" exists, and ids that differ only by case are the same`},
		{"a file site", func() error { _, err := r.Replace(ctx, "blog", []byte(`{"sitemaps": []}`), t0); return err }, ErrFileSite,
			`site "blog" is declared in the configuration file; change it there`},
		{"deleting a file site", func() error { return r.Delete(ctx, "blog") }, ErrFileSite, "declared in the configuration file"},
		{"a missing site", func() error { _, err := r.Replace(ctx, "nope", []byte(`{}`), t0); return err }, ErrNotFound, "create it with POST /api/sites"},
		{"a rename", func() error {
			_, err := r.Replace(ctx, "shop", []byte(`{"id": "shop2", "sitemaps": ["https://shop.example/s.xml"], "feed": {"enabled": true}}`), t0)
			return err
		}, ErrInvalid, "a site cannot be renamed"},
		{"bing without a key", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "bing": {"enabled": true}}`), t0)
			return err
		}, ErrInvalid, `site "x": bing.apiKey is required when bing.enabled is true`},
		{"a file to write", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "feed": {"enabled": true, "out": "/etc/passwd"}}`), t0)
			return err
		}, ErrInvalid, `site "x": feed.out cannot be set through the API, as it writes a file on the server`},
		{"a file to read", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "x", "sitemaps": ["https://x.example/s.xml", "/etc/shadow"], "feed": {"enabled": true}}`), t0)
			return err
		}, ErrInvalid, `site "x": sitemaps[1] must be an http(s) URL: a site created through the API cannot read files of the server`},
		{"a directory to read", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "feed": {"enabled": true}, "changes": {"dir": "/etc"}}`), t0)
			return err
		}, ErrInvalid, `site "x": changes.dir cannot be set through the API, as it reads files of the server`},
		{"a directory that is not there", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "feed": {"enabled": true}, "changes": {"dir": "/no/such/dir"}}`), t0)
			return err
		}, ErrInvalid, `site "x": changes.dir cannot be set through the API, as it reads files of the server`},
		{"a directory to read, on a replace", func() error {
			_, err := r.Replace(ctx, "shop", []byte(`{"sitemaps": ["https://shop.example/s.xml"], "feed": {"enabled": true}, "changes": {"dir": "public"}}`), t0)
			return err
		}, ErrInvalid, `site "shop": changes.dir cannot be set through the API`},
		{"an id that is not text", func() error {
			_, err := r.Replace(ctx, "shop", []byte(`{"id": 5, "sitemaps": ["https://shop.example/s.xml"], "feed": {"enabled": true}}`), t0)
			return err
		}, ErrInvalid, `the body's id 5 is not the site's, "shop"`},
		{"no channel on", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "quiet", "sitemaps": ["https://quiet.example/s.xml"], "bing": {"apiKey": "k"}}`), t0)
			return err
		}, ErrInvalid, `site "quiet": no channel is on, so a run would read its sitemaps and send nothing: turn one on`},
		{"no channel on, and an id taken", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "shop", "sitemaps": ["https://shop.example/s.xml"]}`), t0)
			return err
		}, ErrExists, `a site "shop" exists`},
		{"not an object", func() error { _, err := r.Replace(ctx, "shop", []byte(`[1]`), t0); return err }, ErrInvalid, "must be a JSON object"},
	} {
		err := tt.do()
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) || strings.HasPrefix(err.Error(), "invalid site") {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestReplaceKeepsMaskedKeys(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), "defaults:\n  indexnow: {key: inherited-key-123}\n")
	r.Create(ctx, []byte(shop), t0)
	// What GET shows, sent back with one change: the keys stay.
	e, err := r.Replace(ctx, "shop", []byte(`{"sitemaps": ["https://shop.example/new.xml"],
		"indexnow": {"enabled": true, "key": "0123…"}, "bing": {"enabled": true, "apiKey": "bing…"}}`), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if e.Site.IndexNow.Key != "0123456789abcdef" || e.Site.Bing.APIKey != "bing-secret-key" || e.Site.Sitemaps[0] != "https://shop.example/new.xml" ||
		!e.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("replaced: %+v", e)
	}
	// A key inherited from the defaults, given back masked, is inherited again.
	r.Create(ctx, []byte(`{"id": "inh", "sitemaps": ["https://inh.example/s.xml"], "indexnow": {"enabled": true}}`), t0)
	e, err = r.Replace(ctx, "inh", []byte(`{"sitemaps": ["https://inh.example/s.xml"], "indexnow": {"enabled": true, "key": "inhe…"}}`), t0)
	if err != nil || e.Site.IndexNow.Key != "inherited-key-123" {
		t.Errorf("inherited key: %v %+v", err, e.Site.IndexNow)
	}
	// A new key replaces the old one.
	e, _ = r.Replace(ctx, "shop", []byte(`{"sitemaps": ["https://shop.example/s.xml"], "bing": {"enabled": true, "apiKey": "new-bing-key"}}`), t0)
	if e.Site.Bing.APIKey != "new-bing-key" {
		t.Errorf("a new key: %q", e.Site.Bing.APIKey)
	}
}

func TestDeleteAndASiteThatNoLongerLoads(t *testing.T) {
	st := storetest.Open(t)
	r, _ := newRegistry(t, st, fileConfig)
	r.Create(ctx, []byte(shop), t0)
	r.Create(ctx, []byte(`{"id": "tiny", "sitemaps": ["https://tiny.example/s.xml"], "feed": {"enabled": true, "baselineItems": 15}}`), t0)
	if err := r.Delete(ctx, "shop"); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Get("shop"); ok {
		t.Error("a deleted site is still there")
	}
	// The file's defaults change under a stored site: it no longer loads, and says why, once.
	again, log := newRegistry(t, st, strings.Replace(fileConfig, "maxItems: 20", "maxItems: 10", 1))
	again.Load(ctx)
	if _, ok := again.Get("tiny"); ok || strings.Count(log.String(), "does not load") != 1 ||
		!strings.Contains(log.String(), "feed.baselineItems (15) must be at most feed.maxItems (10, inherited)") {
		t.Errorf("log: %s", log)
	}
	if _, err := again.Replace(ctx, "tiny", []byte(`{"sitemaps": ["https://tiny.example/s.xml"], "feed": {"enabled": true}}`), t0); err != nil {
		t.Errorf("a site that no longer loads can be replaced: %v", err)
	}
}

func TestGetEditPutKeepsWhatIsInheritedAndDerived(t *testing.T) {
	r, _ := newRegistry(t, storetest.Open(t), fileConfig)
	r.Create(ctx, []byte(`{"id": "shop", "sitemaps": ["https://shop.example/sitemap.xml"], "indexnow": {"enabled": true, "key": "old-key-123456"}}`), t0)
	e, _ := r.Get("SHOP") // ids that differ only by case are one site
	// What GET shows — every value, masked keys — with the sitemap moved and a new key.
	shown := e.Site.Masked()
	shown.Sitemaps = []string{"https://www.shop.example/sitemap.xml"}
	shown.IndexNow.Key = "new-key-1234567"
	body, _ := json.Marshal(shown)
	e, err := r.Replace(ctx, "shop", body, t0)
	if err != nil {
		t.Fatal(err)
	}
	if e.Site.BaseURL != "https://www.shop.example" || e.Site.IndexNow.KeyLocation != "https://www.shop.example/new-key-1234567.txt" ||
		e.Site.Feed.MaxItems != 20 {
		t.Errorf("derived values must follow: baseUrl %q, keyLocation %q", e.Site.BaseURL, e.Site.IndexNow.KeyLocation)
	}
	// The defaults change: the site follows them, as it never gave its own.
	again, _ := newRegistry(t, r.store, strings.Replace(fileConfig, "maxItems: 20", "maxItems: 30", 1))
	if e, _ := again.Get("shop"); e.Site.Feed.MaxItems != 30 || e.Site.Schedule != "0 3 * * *" {
		t.Errorf("after the defaults changed: maxItems %d", e.Site.Feed.MaxItems)
	}
}

func TestAnAPISiteTheFileNowDeclares(t *testing.T) {
	st := storetest.Open(t)
	r, _ := newRegistry(t, st, fileConfig)
	r.Create(ctx, []byte(`{"id": "shop", "sitemaps": ["https://shop.example/sitemap.xml"], "feed": {"enabled": true}}`), t0)
	withShop := fileConfig + "  - id: Shop\n    sitemaps: [https://shop.example/sitemap.xml]\n"
	again, log := newRegistry(t, st, withShop)
	if all := again.All(); len(all) != 2 || all[1].Source != FromFile || !strings.Contains(log.String(), "the configuration file declares site") {
		t.Errorf("sites %d, log %s", len(all), log)
	}
}

func TestTheFeedOfAnAPISiteLinksToServe(t *testing.T) {
	for _, tc := range []struct{ top, body, want string }{
		{"publicUrl: https://push.example.com/\nlisten: 127.0.0.1:8080\n", `{"id": "Shop"}`, "https://push.example.com/feeds/Shop.xml"},
		{"listen: :8080\n", `{"id": "shop"}`, "http://localhost:8080/feeds/shop.xml"},
		{"publicUrl: https://push.example.com\n", `{"id": "shop", "feed": {"enabled": true, "url": "https://shop.example/rss.xml"}}`, "https://shop.example/rss.xml"},
	} {
		cfg, err := config.Parse([]byte(tc.top+"sites: []\n"), t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		body := strings.Replace(tc.body, "{", `{"sitemaps": ["https://shop.example/s.xml"], `, 1)
		site, err := cfg.ParseSite([]byte(body))
		if err != nil || site.Feed.URL != tc.want {
			t.Errorf("%q %s: %v, feed.url %q; want %q", tc.top, tc.body, err, site.Feed.URL, tc.want)
		}
	}
}
