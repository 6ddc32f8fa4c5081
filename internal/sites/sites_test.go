package sites

import (
	"bytes"
	"context"
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

func newRegistry(t *testing.T, st *store.Store, doc string) (*Registry, *bytes.Buffer) {
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
			_, err := r.Create(ctx, []byte(`{"id": "BLOG", "sitemaps": ["https://x.example/s.xml"]}`), t0)
			return err
		}, ErrExists, `a site "blog" exists, and ids that differ only by case are the same`},
		{"a file site", func() error { _, err := r.Replace(ctx, "blog", []byte(`{"sitemaps": []}`), t0); return err }, ErrFileSite,
			`site "blog" is declared in the configuration file; change it there`},
		{"deleting a file site", func() error { return r.Delete(ctx, "blog") }, ErrFileSite, "declared in the configuration file"},
		{"a missing site", func() error { _, err := r.Replace(ctx, "nope", []byte(`{}`), t0); return err }, ErrNotFound, "create it with POST /api/sites"},
		{"a rename", func() error {
			_, err := r.Replace(ctx, "shop", []byte(`{"id": "shop2", "sitemaps": ["https://shop.example/s.xml"]}`), t0)
			return err
		}, ErrInvalid, "a site cannot be renamed"},
		{"bing without a key", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "bing": {"enabled": true}}`), t0)
			return err
		}, ErrInvalid, `site "x": bing.apiKey is required when bing.enabled is true`},
		{"another site's feed file", func() error {
			_, err := r.Create(ctx, []byte(`{"id": "x", "sitemaps": ["https://x.example/s.xml"], "feed": {"enabled": true, "out": "/srv/blog/feed.xml"}}`), t0)
			return err
		}, ErrInvalid, `feed.out "/srv/blog/feed.xml" is also written by site "blog"`},
		{"not an object", func() error { _, err := r.Replace(ctx, "shop", []byte(`[1]`), t0); return err }, ErrInvalid, "must be a JSON object"},
	} {
		err := tt.do()
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
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
	r.Create(ctx, []byte(`{"id": "tiny", "sitemaps": ["https://tiny.example/s.xml"], "feed": {"baselineItems": 15}}`), t0)
	if err := r.Delete(ctx, "shop"); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Get("shop"); ok {
		t.Error("a deleted site is still there")
	}
	// The file's defaults change under a stored site: it no longer loads, and says why, once.
	again, log := newRegistry(t, st, strings.Replace(fileConfig, "maxItems: 20", "maxItems: 10", 1))
	again.Load(ctx)
	if _, ok := again.Get("tiny"); ok || strings.Count(log.String(), "no longer loads") != 1 ||
		!strings.Contains(log.String(), "feed.baselineItems (15) must be at most feed.maxItems (10, inherited)") {
		t.Errorf("log: %s", log)
	}
	if _, err := again.Replace(ctx, "tiny", []byte(`{"sitemaps": ["https://tiny.example/s.xml"]}`), t0); err != nil {
		t.Errorf("a site that no longer loads can be replaced: %v", err)
	}
}
