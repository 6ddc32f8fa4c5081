package bing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/channel/bing"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/enginetest"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/store"
	"github.com/sitepush/sitepush/internal/store/storetest"
)

const endpoint = "https://bing.example/webmaster/api.svc/json"

// world is a site with a sitemap, Bing in-process, a real store and a runner.
type world struct {
	t      *testing.T
	dir    string
	site   *config.Site
	bing   *enginetest.Bing
	store  *store.Store
	runner *runner.Runner
	client *http.Client
	dated  []string // newest first
	all    []string // in sitemap order
}

// newWorld configures site "s" with the given bing settings; the sitemap lists 100 undated URLs,
// then 100 dated ones, then 100 more undated ones.
func newWorld(t *testing.T, bingYAML string, keys map[string]int) *world {
	w := &world{t: t, dir: t.TempDir(), bing: &enginetest.Bing{Keys: keys}, store: storetest.Open(t)}
	w.client = enginetest.Client(w.bing)
	cfg := fmt.Sprintf("sites:\n  - id: s\n    sitemaps: [sitemap.xml]\n    baseUrl: https://www.example.com\n    bing: {enabled: true, endpoint: %s, %s}\n", endpoint, bingYAML)
	os.WriteFile(filepath.Join(w.dir, "c.yaml"), []byte(cfg), 0o644)
	c, err := config.Load(filepath.Join(w.dir, "c.yaml"), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	w.site = &c.Sites[0]
	w.runner = runner.New(w.store)
	var b strings.Builder
	b.WriteString("<urlset>")
	type dated struct{ url, lastmod string }
	var ds []dated
	for i := range 300 {
		u := fmt.Sprintf("https://www.example.com/p/%d", i)
		w.all = append(w.all, u)
		if i >= 100 && i < 200 {
			lm := time.Date(2026, time.Month(1+i%10), 1+i%27, i%24, 0, 0, 0, time.UTC).Format(time.RFC3339)
			ds = append(ds, dated{u, lm})
			fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>%s</lastmod></url>", u, lm)
		} else {
			fmt.Fprintf(&b, "<url><loc>%s</loc></url>", u)
		}
	}
	b.WriteString("</urlset>")
	os.WriteFile(filepath.Join(w.dir, "sitemap.xml"), []byte(b.String()), 0o644)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].lastmod > ds[j].lastmod })
	for _, d := range ds {
		w.dated = append(w.dated, d.url)
	}
	return w
}

func (w *world) run() *model.Record {
	w.t.Helper()
	rec, err := w.runner.Run(context.Background(), w.site, runner.Options{Trigger: "cli",
		Channels: []channel.Channel{bing.New(w.site, w.client, "sitepush-test", w.store, time.Now())}})
	if err != nil {
		w.t.Fatal(err)
	}
	return rec
}

func (w *world) used() int {
	used, _, _ := w.store.QuotaUsed(context.Background(), "s", time.Now().UTC().Format(time.DateOnly))
	return used
}

func TestQuotaNewestFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 120", map[string]int{"k": 150})
		rec := w.run()
		sent := w.bing.Accepted()
		st := rec.Channels["bing"]
		if len(sent) != 120 || st.Submitted != 120 || st.Held != 180 || st.Failed != 0 || rec.Status != model.StatusOK || w.used() != 120 {
			t.Fatalf("sent %d, %+v, status %s, used %d", len(sent), st, rec.Status, w.used())
		}
		if !slices.Equal(sent[:100], w.dated) {
			t.Errorf("the first 100 sent are not the dated URLs newest first: %v", sent[:3])
		}
		for _, b := range w.bing.Batches() {
			if len(b.URLs) > 100 || b.SiteURL != "https://www.example.com" {
				t.Errorf("a batch of %d URLs for siteUrl %q", len(b.URLs), b.SiteURL)
			}
		}
		if len(rec.Notes) != 1 || !strings.Contains(rec.Notes[0], "the daily quota of 120 URLs is spent; 180 due URLs go on the next UTC day") {
			t.Errorf("notes %q", rec.Notes)
		}
		// The same UTC day, nothing more goes: the quota is spent.
		before := len(w.bing.Batches())
		if rec := w.run(); len(w.bing.Batches()) != before || rec.Channels["bing"].Held != 180 {
			t.Errorf("the second run sent %d more batches, %+v", len(w.bing.Batches())-before, rec.Channels["bing"])
		}
	})
}

func TestRandomIsNotSitemapOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 30, priority: random", map[string]int{"k": 1000})
		w.run()
		sent := w.bing.Accepted()
		if len(sent) != 30 || slices.Equal(sent, w.all[:30]) {
			t.Errorf("random picked %v", sent)
		}
		for _, u := range sent {
			if !slices.Contains(w.all, u) {
				t.Errorf("sent %s, which is not due", u)
			}
		}
	})
}

func TestBingQuotaLowerThanConfigured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 100", map[string]int{"k": 30})
		rec := w.run()
		refused := slices.ContainsFunc(w.bing.Batches(), func(b enginetest.BingBatch) bool { return b.Status != http.StatusOK })
		if len(w.bing.Accepted()) != 30 || refused || rec.Channels["bing"].Held != 270 {
			t.Errorf("accepted %d, a refusal %v, %+v", len(w.bing.Accepted()), refused, rec.Channels["bing"])
		}
	})
}

func TestBingRefusesForQuota(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 300, batchSize: 50", map[string]int{"k": 1000})
		// Bing says 1,000 are left, then refuses the second batch for quota all the same.
		w.client = enginetest.Client(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/SubmitUrlbatch") && len(w.bing.Batches()) == 1 {
				w.bing.Fail(enginetest.Fault{Status: 400, ErrorCode: 2, Message: "ERROR!!! You have exceeded your daily url submission quota : 1000"})
			}
			w.bing.ServeHTTP(rw, r)
		}))
		rec := w.run()
		batches := w.bing.Batches()
		if len(batches) != 2 || len(w.bing.Accepted()) != 50 || rec.Channels["bing"].Held != 250 || w.used() != 50 {
			t.Fatalf("%d requests, %d accepted, %+v, used %d", len(batches), len(w.bing.Accepted()), rec.Channels["bing"], w.used())
		}
		if rec.Status != model.StatusOK || !strings.Contains(strings.Join(rec.Notes, " "), "exceeded your daily url submission quota") {
			t.Errorf("status %s, notes %q", rec.Status, rec.Notes)
		}
		if w.run(); len(w.bing.Batches()) != 2 {
			t.Error("after Bing refused for quota, a later run the same day sent again")
		}
	})
}

func TestInvalidKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: wrong-key-12345", map[string]int{"k": 100})
		rec := w.run()
		msg := strings.Join(rec.Errors, " ")
		if rec.Status != model.StatusPartial || len(w.bing.Batches()) != 0 || !strings.Contains(msg, "bing: Bing answered HTTP 401, ErrorCode 3: InvalidApiKey: the API key was rejected: check bing.apiKey") {
			t.Errorf("status %s, %d batches, errors %q", rec.Status, len(w.bing.Batches()), rec.Errors)
		}
		if strings.Contains(msg, "wrong-key-12345") {
			t.Error("the API key was printed")
		}
	})
}

func TestInvalidURLs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 1000, batchSize: 100, priority: random", map[string]int{"k": 1000})
		named := "https://www.example.com/p/7"
		unnamed := "https://www.example.com/p/8"
		inner := w.bing
		w.client = enginetest.Client(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			var body struct{ URLList []string }
			if r.Body != nil {
				json.NewDecoder(r.Body).Decode(&body)
			}
			switch {
			case slices.Contains(body.URLList, named):
				inner.Fail(enginetest.Fault{Status: 400, ErrorCode: 7, Message: "ERROR!!! InvalidUrl " + named})
			case slices.Contains(body.URLList, unnamed):
				inner.Fail(enginetest.Fault{Status: 400, ErrorCode: 7, Message: "ERROR!!! InvalidUrl"})
			}
			b, _ := json.Marshal(body)
			r2, _ := http.NewRequest(r.Method, r.URL.String(), strings.NewReader(string(b)))
			r2.Header = r.Header
			inner.ServeHTTP(rw, r2)
		}))
		rec := w.run()
		st := rec.Channels["bing"]
		if st.Submitted != 298 || st.Failed != 2 || slices.Contains(inner.Accepted(), named) || slices.Contains(inner.Accepted(), unnamed) {
			t.Fatalf("%+v, accepted %d", st, len(inner.Accepted()))
		}
		if rec := w.run(); rec.Channels["bing"].Due != 0 {
			t.Errorf("rejected URLs came back the next run: %+v", rec.Channels["bing"])
		}
	})
}

func TestRetriesAndRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t, "apiKey: k, dailyQuota: 300, batchSize: 100", map[string]int{"k": 1000})
		w.bing.Fail(enginetest.Fault{Status: 429, RetryAfter: "5"},
			enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
		start := time.Now()
		rec := w.run()
		st := rec.Channels["bing"]
		// First batch: 429 (5 s), then 503 ×3 (2 s, 4 s) and gives up; the two others go through.
		if st.Submitted != 200 || st.Failed != 100 || w.used() != 200 || time.Since(start) < 11*time.Second {
			t.Errorf("%+v, used %d after %v", st, w.used(), time.Since(start))
		}
		if !strings.Contains(rec.Errors[0], "HTTP 503") || !strings.Contains(rec.Errors[0], "gave up after 4 attempts") {
			t.Errorf("errors %q", rec.Errors)
		}
	})
}
