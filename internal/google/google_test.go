package google_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// TestBadKeyFile: a key file that is not a service account's is named, its content never shown;
// a device, or a file far larger than a key, is not read whole.
func TestBadKeyFile(t *testing.T) {
	g := enginetest.NewGoogle(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		name, path, want string
	}{
		{"missing", "/nonexistent/key.json", "no such file"},
		{"not JSON", write("text.json", "PROBE-CONTENT-1 is not JSON"), "is not JSON"},
		{"another type", write("user.json", `{"type": "PROBE-CONTENT-2", "client_email": "PROBE-CONTENT-3"}`), "is not a service account's key"},
		{"a device", "/dev/zero", "is not a regular file"},
		{"too large", write("large.json", `{"type": "service_account", "x": "`+strings.Repeat("PROBE-CONTENT-4", 10000)+`"}`), "over 64 KiB"},
	} {
		_, err := google.NewAPI(ctx, site(g, c.path).Google, nil)
		if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "PROBE-CONTENT") {
			t.Errorf("%s: error %v; want one naming the file and saying %q, and nothing read from it", c.name, err, c.want)
		}
	}
}

// TestTokenRefusalClipped: what a token endpoint answers in its refusal is clipped in the error,
// and an answer that is not an OAuth error is described, not quoted.
func TestTokenRefusalClipped(t *testing.T) {
	for _, c := range []struct {
		name, contentType, body, want string
	}{
		{"OAuth error", "application/json", `{"error": "invalid_grant", "error_description": "` + strings.Repeat("x", 5000) + `"}`, "invalid_grant: xxx"},
		{"HTML page", "text/html", "<html><body>PROBE-CONTENT " + strings.Repeat("y", 5000) + "</body></html>", "an HTML page, text/html"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", c.contentType)
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, c.body)
			}))
			defer tokens.Close()
			g := enginetest.NewGoogle(t)
			api, err := google.NewAPI(ctx, site(g, withTokenURI(t, g.Account(t, email, nil), tokens.URL+"/token")).Google, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = api.Site(ctx)
			if err == nil || !strings.Contains(err.Error(), "the token endpoint refused the service account "+email) ||
				!strings.Contains(err.Error(), c.want) || len(err.Error()) > 600 || strings.Contains(err.Error(), "PROBE-CONTENT") {
				t.Errorf("error (%d bytes) %.800v; want the refusal, saying %q, clipped", len(fmt.Sprint(err)), err, c.want)
			}
		})
	}
}

// TestNoRedirect: Google's endpoint redirecting elsewhere gets an error; the access token never
// goes to where it points.
func TestNoRedirect(t *testing.T) {
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Write([]byte(`{"permissionLevel": "siteOwner"}`))
	}))
	defer elsewhere.Close()
	g := enginetest.NewGoogle(t)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer proxy.Close()
	s := site(g, g.Account(t, email, map[string]string{property: "siteOwner"}))
	s.Google.Endpoint = proxy.URL
	api, err := google.NewAPI(ctx, s.Google, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Site(ctx); err == nil || !strings.Contains(err.Error(), "redirected") {
		t.Errorf("error %v; want the redirect refused", err)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests, with the access token; want none", n)
	}
}

// withTokenURI rewrites the key file at path to send its token requests to uri.
func withTokenURI(t *testing.T, path, uri string) string {
	t.Helper()
	var k map[string]any
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &k)
	}
	if err != nil {
		t.Fatal(err)
	}
	k["token_uri"] = uri
	data, _ = json.Marshal(k)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
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
