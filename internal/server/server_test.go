package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func decode(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
}

func TestAuthAndErrors(t *testing.T) {
	w := newWorld(t)
	req, _ := http.NewRequest("GET", w.http.URL+"/api/sites", nil)
	req.Header.Set("Authorization", "bearer "+token) // the scheme's case does not matter
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("a lower-case scheme: %v %v", resp, err)
	}
	for _, tok := range []string{"", "wrong", token + "x"} {
		if code, body := w.call("GET", "/api/sites", "", tok); code != http.StatusUnauthorized || !strings.Contains(body, `"error":"this route needs the header Authorization: Bearer`) {
			t.Errorf("token %q: %d %s", tok, code, body)
		}
	}
	for _, tc := range []struct {
		method, path string
		code         int
		want         string
	}{
		{"GET", "/nope", 404, `"error":"no route GET /nope`},
		{"DELETE", "/api/sites", 405, `"error":"DELETE /api/sites is not allowed; use GET, HEAD, POST"`},
		{"GET", "/api/sites/nope", 404, `no site \"nope\"`},
		{"GET", "/status?site=nope", 404, `no site \"nope\"`},
		{"GET", "/feeds/nope.xml", 404, `no site \"nope\"`},
		{"GET", "/feeds/filesite.rss", 404, `feeds are at /feeds/{site id}.xml`},
		{"GET", "/api/stats/daily?days=91", 400, "days must be a whole number from 1 to 90"},
		{"GET", "/api/sites/filesite/runs?limit=x", 400, "limit must be a whole number"},
		{"GET", "/healthz", 200, `"status":"ok"`},
		{"HEAD", "/trigger?site=filesite", 405, ""},
	} {
		code, body := w.call(tc.method, tc.path, "")
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, code, body)
		}
	}
}

func TestSitesAPI(t *testing.T) {
	w := newWorld(t)
	code, body := w.call("GET", "/api/sites", "")
	if code != 200 || !strings.Contains(body, `"id":"filesite"`) || !strings.Contains(body, `"source":"file"`) ||
		strings.Contains(body, bingKey) || strings.Contains(strings.ReplaceAll(body, siteKey+".txt", ""), siteKey) {
		t.Fatalf("GET /api/sites: %d %s", code, body)
	}
	site := `{"id": "apisite", "sitemaps": ["` + w.site.URL + `/sitemap.xml"], "indexnow": {"enabled": true, "key": "` + siteKey + `"}, "bing": {"enabled": true}}`
	if code, body := w.call("POST", "/api/sites", site); code != 400 || !strings.Contains(body, `bing.apiKey is required when bing.enabled is true`) {
		t.Errorf("bing without a key: %d %s", code, body)
	}
	site = strings.Replace(site, `"bing": {"enabled": true}`, `"bing": {"enabled": true, "apiKey": "api-bing-key"}`, 1)
	code, body = w.call("POST", "/api/sites", site)
	var created struct {
		Site struct {
			ID   string `json:"id"`
			Bing struct {
				APIKey string `json:"apiKey"`
			} `json:"bing"`
			RunBudget string `json:"runBudget"`
		} `json:"site"`
		Source    string    `json:"source"`
		CreatedAt time.Time `json:"createdAt"`
	}
	decode(t, body, &created)
	if code != 201 || created.Site.ID != "apisite" || created.Site.Bing.APIKey != "api-…" || created.Source != "api" ||
		created.Site.RunBudget != "5m0s" || created.CreatedAt.IsZero() {
		t.Fatalf("POST: %d %s", code, body)
	}
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"POST", "/api/sites", site, 409, `a site \"apisite\" exists`},
		{"PUT", "/api/sites/filesite", `{"id": "filesite", "sitemaps": []}`, 409, "declared in the configuration file"},
		{"DELETE", "/api/sites/filesite", "", 409, "declared in the configuration file"},
		{"POST", "/api/sites", `{"id": `, 400, "the body must be JSON"},
		{"POST", "/api/sites", `{"id": "big", "x": "` + strings.Repeat("x", maxBody) + `"}`, 413, "the body is larger than"},
		{"POST", "/api/sites", `{"id": "y", "sitemaps": ["https://y.example/s.xml"], "bing": {"dailyquota": 5}}`, 400, `did you mean \"dailyQuota\"?`},
		{"PUT", "/api/sites/apisite", `{"sitemaps": ["` + w.site.URL + `/sitemap.xml"], "schedule": "@hourly", "bing": {"enabled": true, "apiKey": "api-…"}}`, 200, `"schedule":"@hourly"`},
		{"GET", "/api/sites/apisite", "", 200, `"apiKey":"api-…"`},
		{"PUT", "/api/sites/apisite", `{"sitemaps": ["` + w.site.URL + `/sitemap.xml"], "backlog": "none", "indexnow": {"enabled": true, "key": "` + siteKey + `", "backlog": "168h"},
			"bing": {"enabled": true, "apiKey": "api-…"}}`,
			200, `"backlog":"168h"`},
		{"POST", "/api/sites", `{"id": "y", "sitemaps": ["https://y.example/s.xml"], "feed": {"enabled": true, "backlog": "none"}}`, 400,
			"feed.backlog is not a setting: the feed's first run is its own"},
	} {
		code, body := w.call(tc.method, tc.path, tc.body)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s: %d %.300s", tc.method, tc.path, code, body)
		}
	}
	// The masked key given back kept the real one.
	if e, _ := w.api.sites.Get("apisite"); e.Site.Bing.APIKey != "api-bing-key" {
		t.Errorf("the key after a PUT of the masked one: %q", e.Site.Bing.APIKey)
	}
	if code, _ := w.call("DELETE", "/api/sites/apisite", ""); code != 204 {
		t.Errorf("DELETE: %d", code)
	}
	if code, _ := w.call("GET", "/api/sites/apisite", ""); code != 404 {
		t.Errorf("GET after DELETE: %d", code)
	}
}

func TestTriggerStatusStatsFeedMetrics(t *testing.T) {
	w := newWorld(t)
	w.call("POST", "/api/sites", `{"id": "nobing", "sitemaps": ["`+w.site.URL+`/sitemap.xml"], "feed": {"enabled": true}}`)
	if code, body := w.call("POST", "/trigger?site=nobing&channel=bing", ""); code != 400 || !strings.Contains(body, "Bing submission is not enabled for this site") {
		t.Errorf("bing on a site without it: %d %s", code, body)
	}
	if code, body := w.call("POST", "/trigger?site=filesite&channel=yandex", ""); code != 400 || !strings.Contains(body, "channel must be one of all, indexnow, bing, feed") {
		t.Errorf("an unknown channel: %d %s", code, body)
	}
	code, body := w.call("GET", "/trigger?site=filesite", "")
	var started struct {
		RunID int64 `json:"runId"`
	}
	decode(t, body, &started)
	if code != 202 || started.RunID == 0 {
		t.Fatalf("trigger: %d %s", code, body)
	}
	w.waitFinished("filesite")

	code, body = w.call("GET", "/status?site=FileSite", "") // ids that differ only by case are one site
	var st struct {
		SiteID        string `json:"siteId"`
		Status        string `json:"status"`
		NextRun       time.Time
		LastExecution struct {
			ID         int64     `json:"id"`
			Status     string    `json:"status"`
			FinishedAt time.Time `json:"finishedAt"`
		} `json:"lastExecution"`
		Channels map[string]struct {
			Enabled bool `json:"enabled"`
			Today   struct {
				Total      int `json:"total"`
				Successful int `json:"successful"`
			} `json:"today"`
		} `json:"channels"`
		Bing struct {
			Enabled             bool       `json:"enabled"`
			TodayQuotaUsed      int        `json:"todayQuotaUsed"`
			TodayQuotaRemaining int        `json:"todayQuotaRemaining"`
			BingRemaining       int        `json:"bingRemaining"`
			LastSubmission      *time.Time `json:"lastSubmission"`
		} `json:"bing"`
	}
	decode(t, body, &st)
	if code != 200 || st.Status != "idle" || st.LastExecution.ID != started.RunID || st.LastExecution.Status != "ok" ||
		st.NextRun.Year() != time.Now().Year()+1 || !st.Bing.Enabled || st.Bing.TodayQuotaUsed != 25 || st.Bing.TodayQuotaRemaining != 15 ||
		st.Bing.LastSubmission == nil || st.Channels["indexnow"].Today.Successful != 25 || st.Bing.BingRemaining != 75 || st.SiteID != "filesite" {
		t.Fatalf("status: %d %s", code, body)
	}
	if len(w.engine.Accepted()) != 25 || len(w.bing.Accepted()) != 25 {
		t.Errorf("delivered: indexnow %d, bing %d", len(w.engine.Accepted()), len(w.bing.Accepted()))
	}

	code, body = w.call("GET", "/api/stats/daily?days=3&site=filesite", "")
	var stats struct {
		Days  int `json:"days"`
		Daily []struct {
			Date     string `json:"date"`
			IndexNow struct {
				Total, Successful int
			} `json:"indexnow"`
			Bing struct {
				Total, Successful int
			} `json:"bing"`
		} `json:"daily"`
	}
	decode(t, body, &stats)
	today := time.Now().UTC().Format(time.DateOnly)
	if code != 200 || len(stats.Daily) != 3 || stats.Daily[2].Date != today || stats.Daily[2].IndexNow.Successful != 25 ||
		stats.Daily[2].Bing.Total != 25 || stats.Daily[0].IndexNow.Total != 0 {
		t.Errorf("stats: %d %s", code, body)
	}
	if code, body := w.call("GET", "/api/sites/filesite/runs?limit=5", ""); code != 200 || !strings.Contains(body, `"trigger":"manual"`) {
		t.Errorf("runs: %d %.200s", code, body)
	}

	req, _ := http.NewRequest("GET", w.http.URL+"/feeds/filesite.xml", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || etag == "" || resp.Header.Get("Last-Modified") == "" || resp.Header.Get("Content-Type") != "application/rss+xml; charset=utf-8" {
		t.Fatalf("feed: %d %v", resp.StatusCode, resp.Header)
	}
	req.Header.Set("If-None-Match", etag)
	if resp, _ := http.DefaultClient.Do(req); resp.StatusCode != http.StatusNotModified {
		t.Errorf("a reader that has the feed: %d", resp.StatusCode)
	}
	_, feedBody := w.call("GET", "/feeds/filesite.xml", "", "")
	if !strings.Contains(feedBody, "<rss") || !strings.Contains(feedBody, "post-24") || strings.Count(feedBody, "<item>") != 10 {
		t.Errorf("feed body: %.300s", feedBody)
	}
	_, m := w.call("GET", "/metrics", "", "")
	for _, want := range []string{`sitepush_runs_total{site="filesite",status="ok",trigger="manual"} 1`,
		`sitepush_url_attempts_total{channel="indexnow",endpoint=`, `sitepush_bing_quota_used{site="filesite"} 25`,
		`sitepush_bing_quota_remaining{site="filesite"} 15`, `sitepush_last_success_timestamp_seconds{site="filesite"}`,
		`sitepush_engine_request_duration_seconds_bucket{channel="bing"`, `sitepush_feed_items_added_total{site="filesite"} 10`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestTriggerWhileRunning(t *testing.T) {
	w := newWorld(t)
	if _, err := w.store.AcquireLease(t.Context(), "filesite", "another-instance", time.Now(), time.Minute); err != nil {
		t.Fatal("no lease:", err)
	}
	if code, body := w.call("POST", "/trigger?site=filesite", ""); code != 409 || !strings.Contains(body, "is being run now") {
		t.Errorf("a site another instance runs: %d %s", code, body)
	}
	if _, body := w.call("GET", "/status?site=filesite", ""); !strings.Contains(body, `"status":"running"`) {
		t.Errorf("status of a site run elsewhere: %s", body)
	}
}

func TestDashboard(t *testing.T) {
	w := newWorld(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(w.http.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("without a session: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := client.PostForm(w.http.URL+"/login", map[string][]string{"token": {"wrong"}}); resp.StatusCode != 401 {
		t.Errorf("a wrong token: %d", resp.StatusCode)
	}
	resp, _ = client.PostForm(w.http.URL+"/login", map[string][]string{"token": {token}})
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(cookies) != 1 || !cookies[0].HttpOnly {
		t.Fatalf("login: %d %v", resp.StatusCode, cookies)
	}
	req, _ := http.NewRequest("GET", w.http.URL+"/", nil)
	req.AddCookie(cookies[0])
	resp, _ = client.Do(req)
	body := make([]byte, 64<<10)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body[:n]), "filesite") {
		t.Errorf("with a session: %d %s", resp.StatusCode, body[:n])
	}
	// A session cookie opens the dashboard, not the API.
	req, _ = http.NewRequest("GET", w.http.URL+"/api/sites", nil)
	req.AddCookie(cookies[0])
	if resp, _ := client.Do(req); resp.StatusCode != 401 {
		t.Errorf("the API with a session cookie only: %d", resp.StatusCode)
	}
	cookies[0].Value = "9999999999." + strings.Repeat("0", 64)
	req, _ = http.NewRequest("GET", w.http.URL+"/", nil)
	req.AddCookie(cookies[0])
	if resp, _ := client.Do(req); resp.StatusCode != 401 {
		t.Errorf("a forged session: %d", resp.StatusCode)
	}
}

func TestStatusSaysWhenBingRefusesTheKey(t *testing.T) {
	w := newWorld(t)
	w.call("POST", "/api/sites", `{"id": "badkey", "sitemaps": ["`+w.site.URL+`/sitemap.xml"], "bing": {"enabled": true, "apiKey": "not-a-key", "endpoint": "`+w.config.Sites[0].Bing.Endpoint+`"}}`)
	code, body := w.call("GET", "/status?site=badkey", "")
	if code != 200 || !strings.Contains(body, `"error":"Bing did not tell the quota left:`) || strings.Contains(body, "not-a-key") {
		t.Errorf("%d %s", code, body)
	}
}
