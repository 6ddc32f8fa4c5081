package server

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

// smallKey is a Bing API key Bing grants 10 URLs a day: fewer than the sites' dailyQuota of 100.
const smallKey = "bing-key-small"

// bingSite creates a site through the API whose Bing key Bing grants 10 a day, with dailyQuota
// 100, over the world's 25 posts.
func (w *world) bingSite(id string) {
	w.t.Helper()
	w.bing.Keys[smallKey] = 10
	body := `{"id": "` + id + `", "sitemaps": ["` + w.site.URL + `/sitemap.xml"], "schedule": "0 0 1 1 *",
		"bing": {"enabled": true, "apiKey": "` + smallKey + `", "dailyQuota": 100, "endpoint": "` + w.config.Sites[0].Bing.Endpoint + `"}}`
	if code, out := w.call("POST", "/api/sites", body); code != 201 {
		w.t.Fatalf("creating %s: %d %s", id, code, out)
	}
}

// text is a page's text, its tags dropped.
func text(page string) string {
	return strings.Join(strings.Fields(html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(page, " "))), " ")
}

// remaining is sitepush_bing_quota_remaining of site in a scrape, "" when absent.
func (w *world) remaining(site string) string {
	w.t.Helper()
	_, m := w.call("GET", "/metrics", "", "")
	found := regexp.MustCompile(`(?m)^sitepush_bing_quota_remaining\{site="` + site + `"\} (\S+)$`).FindStringSubmatch(m)
	if found == nil {
		return ""
	}
	return found[1]
}

// TestOneQuotaEverywhere: Bing grants 10 a day, dailyQuota is 100, and a run sent 10. Bing's
// answer, kept by the run, makes every face say 0 left, because Bing says so: /status, the
// overview, the site's page, /metrics, and the story of a URL the quota held.
func TestOneQuotaEverywhere(t *testing.T) {
	w := newWorld(t)
	w.bingSite("small")
	if code, body := w.call("POST", "/trigger?site=small&channel=bing", ""); code != 202 {
		t.Fatalf("trigger: %d %s", code, body)
	}
	w.waitFinished("small")
	if n := len(w.bing.Accepted()); n != 10 {
		t.Fatalf("Bing got %d URLs; want the 10 it grants", n)
	}
	var st struct {
		Bing struct {
			TodayQuotaUsed      int    `json:"todayQuotaUsed"`
			TodayQuotaRemaining int    `json:"todayQuotaRemaining"`
			TodayQuotaSource    string `json:"todayQuotaSource"`
		} `json:"bing"`
	}
	_, body := w.call("GET", "/status?site=small", "")
	decode(t, body, &st)
	if st.Bing.TodayQuotaUsed != 10 || st.Bing.TodayQuotaRemaining != 0 || st.Bing.TodayQuotaSource != "Bing says 0 left today" {
		t.Errorf("/status: %s", body)
	}
	want := "0 left today (Bing says 0 left today) — URLs are held; 10 used of dailyQuota 100"
	for _, page := range []string{"/", "/sites/small"} {
		if code, body := w.call("GET", page, ""); code != 200 || !strings.Contains(text(body), want) {
			t.Errorf("%s: %d; want %q in %s", page, code, want, text(body))
		}
	}
	if got := w.remaining("small"); got != "0" {
		t.Errorf("sitepush_bing_quota_remaining{site=\"small\"} is %q; want 0", got)
	}
	// Newest first: the oldest post is among the 15 the quota held.
	_, body = w.call("GET", "/sites/small/urls?q="+w.site.URL+"/blog/post-0", "")
	if want := "due: new, held by quota (Bing says 0 left today), resets at 00:00 UTC"; !strings.Contains(text(body), want) {
		t.Errorf("the held URL's story: want %q in %.800s", want, text(body))
	}
}

// TestStatusKeepsWhatBingSays: before any run, /status asks Bing and keeps its answer in the
// state, so that /metrics, which does not ask, says the same.
func TestStatusKeepsWhatBingSays(t *testing.T) {
	w := newWorld(t)
	w.bingSite("fresh")
	_, body := w.call("GET", "/status?site=fresh", "")
	var st struct {
		Bing struct {
			TodayQuotaRemaining int    `json:"todayQuotaRemaining"`
			TodayQuotaSource    string `json:"todayQuotaSource"`
		} `json:"bing"`
	}
	decode(t, body, &st)
	if st.Bing.TodayQuotaRemaining != 10 || st.Bing.TodayQuotaSource != "Bing says 10 left today" {
		t.Errorf("/status: %s", body)
	}
	if got := w.remaining("fresh"); got != "10" {
		t.Errorf("sitepush_bing_quota_remaining{site=\"fresh\"} is %q; want Bing's 10, as /status says", got)
	}
}
