package server

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/api"
	"github.com/sitepush/sitepush/internal/enginetest"
)

// TestStatusesReadAtOnce: every site's status read for all sites at once (store.SiteReads) is
// the status read site by site.
func TestStatusesReadAtOnce(t *testing.T) {
	w := newWorld(t)
	w.call("POST", "/api/sites", `{"id": "second", "sitemaps": ["`+w.site.URL+`/sitemap.xml"], "feed": {"enabled": true}}`)
	w.call("POST", "/api/sites", `{"id": "idle", "sitemaps": ["`+w.site.URL+`/sitemap.xml"], "feed": {"enabled": true}}`)
	w.call("POST", "/trigger?site=filesite", "")
	w.waitFinished("filesite")
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	w.files["/sitemap.xml"] += "<!-- changed -->"
	w.call("POST", "/trigger?site=second", "")
	w.waitFinished("second")
	ctx, now := context.Background(), time.Now()
	reads, err := w.store.SiteReads(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	w.api.sites.Load(ctx)
	for _, e := range w.api.sites.All() {
		one, err := api.Status(ctx, w.store, e.Site, e.Source, now, api.Live{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(one)
		b, _ := json.Marshal(api.FromReads(ctx, reads, e.Site, e.Source, now, api.Live{}))
		if string(a) != string(b) {
			t.Errorf("site %s:\nread alone %s\nread at once %s", e.Site.ID, a, b)
		}
	}
}
