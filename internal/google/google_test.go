package google_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/google"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

const (
	email    = "sitepush@fake.iam.gserviceaccount.com"
	property = "sc-domain:a.example"
)

var ctx = context.Background()

func site(g *enginetest.Google, credentials string) *config.Site {
	s := &config.Site{ID: "a", BaseURL: "https://a.example", Settings: config.Builtin()}
	s.Google.Enabled, s.Google.Credentials, s.Google.Property, s.Google.Endpoint = true, credentials, property, g.URL
	return s
}

// TestSiteAndToken: sites.get answers the account's permission, with a token the JWT grant got
// for the key file's client_email.
func TestSiteAndToken(t *testing.T) {
	g := enginetest.NewGoogle(t)
	api, err := google.NewAPI(ctx, site(g, g.Account(t, email, map[string]string{property: "siteOwner"})).Google, nil)
	if err != nil {
		t.Fatal(err)
	}
	if level, err := api.Site(ctx); err != nil || level != "siteOwner" {
		t.Fatalf("Site: %q, %v", level, err)
	}
	if tok := g.Calls("token"); len(tok) != 1 || tok[0].Status != 200 || tok[0].Email != email {
		t.Errorf("token calls: %+v", tok)
	}
}

// TestRefused: an account without the property is refused, and the error says it must be an
// owner or full user, naming it.
func TestRefused(t *testing.T) {
	g := enginetest.NewGoogle(t)
	s := site(g, g.Account(t, email, nil))
	f := google.New(s, nil, storetest.Open(t), time.Now)
	_, err := f.Sitemaps(ctx, s, []string{"https://a.example/sitemap.xml"})
	if err == nil || !strings.Contains(err.Error(), "must be an owner or full user") || !strings.Contains(err.Error(), email) {
		t.Errorf("error %v; want one naming the account and the permission it lacks", err)
	}
}

// TestBadKeyFile: a key file that is not a service account's is named, its content never shown.
func TestBadKeyFile(t *testing.T) {
	g := enginetest.NewGoogle(t)
	_, err := google.NewAPI(ctx, site(g, "/nonexistent/key.json").Google, nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/key.json") {
		t.Errorf("error %v; want one naming the file", err)
	}
}

// TestFollow: the sitemaps are submitted (a local file is not), and the URLs earlier runs sent
// are inspected once, what Google said kept.
func TestFollow(t *testing.T) {
	g := enginetest.NewGoogle(t)
	st := storetest.Open(t)
	s := site(g, g.Account(t, email, map[string]string{property: "siteFullUser"}))
	f := google.New(s, nil, st, time.Now)
	note, err := f.Sitemaps(ctx, s, []string{"https://a.example/a.xml", "/srv/b.xml", "https://a.example/c.xml"})
	if err != nil {
		t.Fatal(err)
	}
	subs := g.Calls("sitemaps.submit")
	if len(subs) != 2 || subs[0].Sitemap != "https://a.example/a.xml" || subs[1].Sitemap != "https://a.example/c.xml" ||
		subs[0].Property != property || subs[0].Status != 204 {
		t.Errorf("submitted %+v", subs)
	}
	if !strings.Contains(note, "/srv/b.xml") {
		t.Errorf("note %q; want the local file named", note)
	}

	t0 := time.Now().Add(-time.Hour)
	pages := []channel.Page{{Hash: 1, URL: "https://a.example/1"}, {Hash: 2, URL: "https://b.example/2"}}
	if _, err := st.SyncCatalog(ctx, "a", t0, pages, nil, false); err != nil {
		t.Fatal(err)
	}
	st.RecordOutcome(ctx, "a", t0, channel.Outcome{Channel: "indexnow", URLs: []channel.Due{{Hash: 1}, {Hash: 2}}, Delivered: true})
	g.Inspected["https://a.example/1"] = map[string]string{"coverageState": "Submitted and indexed", "indexingState": "INDEXING_ALLOWED",
		"lastCrawlTime": "2026-03-04T05:06:07Z"}
	for range 2 {
		if _, err := f.Follow(ctx, s, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if ins := g.Calls("inspect"); len(ins) != 1 || ins[0].URL != "https://a.example/1" || ins[0].Property != property {
		t.Errorf("inspected %+v; want the URL of the property once", ins)
	}
	in, err := st.Inspection(ctx, "a", 1)
	if err != nil || in == nil || in.CoverageState != "Submitted and indexed" || in.LastCrawl.Format(time.RFC3339) != "2026-03-04T05:06:07Z" {
		t.Errorf("kept %+v, %v", in, err)
	}
}
