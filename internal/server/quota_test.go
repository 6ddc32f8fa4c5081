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
	w.bingSiteOf(id, smallKey, 10, `, "dailyQuota": 100`)
}

// bingSiteOf creates a site through the API with Bing alone on, its key granted grant a day,
// with quota written into its bing block (`, "dailyQuota": 5`, or "" for none).
func (w *world) bingSiteOf(id, key string, grant int, quota string) {
	w.t.Helper()
	w.bing.Keys[key] = grant
	body := `{"id": "` + id + `", "sitemaps": ["` + w.site.URL + `/sitemap.xml"], "schedule": "0 0 1 1 *",
		"bing": {"enabled": true, "apiKey": "` + key + `"` + quota + `, "endpoint": "` + w.config.Sites[0].Bing.Endpoint + `"}}`
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
	if st.Bing.TodayQuotaUsed != 10 || st.Bing.TodayQuotaRemaining != 0 || st.Bing.TodayQuotaSource != "Bing's grant of 10" {
		t.Errorf("/status: %s", body)
	}
	want := "0 left today — Bing's grant of 10 (your bing.dailyQuota is 100); resets at 00:00 UTC"
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
	if want := "due: new, held by quota (Bing's grant of 10), resets at 00:00 UTC"; !strings.Contains(text(body), want) {
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
	if st.Bing.TodayQuotaRemaining != 10 || st.Bing.TodayQuotaSource != "Bing's grant of 10" {
		t.Errorf("/status: %s", body)
	}
	if got := w.remaining("fresh"); got != "10" {
		t.Errorf("sitepush_bing_quota_remaining{site=\"fresh\"} is %q; want Bing's 10, as /status says", got)
	}
}

// quotaOf is the text of the first Bing quota line of a page, and whether its bar is drawn as
// the colour of an error.
func quotaOf(page string) (line string, red bool) {
	m := regexp.MustCompile(`(?s)<div class="quota">(.*?)</div></div>`).FindStringSubmatch(page)
	if m == nil {
		return "", false
	}
	return text(m[1]), strings.Contains(m[1], "full")
}

// TestQuotaWords: Bing's quota is one number left, and where it comes from with what it is out of,
// on the overview and the site's page: Bing's grant, a bing.dailyQuota the site set, or sitepush's
// default limit — which is never named as the site's dailyQuota when nobody set it.
// Only the one number is said to be left. A spent quota is the day's ordinary end: its bar is not an error's.
func TestQuotaWords(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		site, key string
		grant     int
		quota     string
		want      string
		source    string // /status's todayQuotaSource: the same words
	}{
		{"granted", "key-granted", 10, "", "Bing quota: 0 left today — Bing's grant of 10; resets at 00:00 UTC", "Bing's grant of 10"},
		{"granted-set", "key-granted-set", 10, `, "dailyQuota": 100`, "Bing quota: 0 left today — Bing's grant of 10 (your bing.dailyQuota is 100); resets at 00:00 UTC", "Bing's grant of 10"},
		{"capped", "key-capped", 10, `, "dailyQuota": 5`, "Bing quota: 0 left today — your bing.dailyQuota of 5 (Bing would take 5 more); resets at 00:00 UTC", "your bing.dailyQuota of 5"},
		{"defaulted", "key-defaulted", 250, "", "Bing quota: 75 left today — sitepush's default limit of 100 a day, which bing.dailyQuota changes (Bing would take 225 more); resets at 00:00 UTC", "sitepush's default limit of 100 a day, which bing.dailyQuota changes"},
	}
	for _, tt := range tests {
		w.bingSiteOf(tt.site, tt.key, tt.grant, tt.quota)
		if code, body := w.call("POST", "/trigger?site="+tt.site+"&channel=bing", ""); code != 202 {
			t.Fatalf("trigger %s: %d %s", tt.site, code, body)
		}
		w.waitFinished(tt.site)
	}
	b := w.signIn()
	for _, tt := range tests {
		t.Run(tt.site, func(t *testing.T) {
			for _, path := range []string{"/sites/" + tt.site, "/?q=" + tt.site} {
				_, page := b.get(path)
				line, red := quotaOf(page)
				if line != tt.want {
					t.Errorf("%s says %q\nwant %q", path, line, tt.want)
				}
				if red {
					t.Errorf("%s draws the quota's bar as an error", path)
				}
			}
			var st struct {
				Bing struct {
					TodayQuotaSource string `json:"todayQuotaSource"`
				} `json:"bing"`
			}
			_, body := w.call("GET", "/status?site="+tt.site, "")
			if decode(t, body, &st); st.Bing.TodayQuotaSource != tt.source {
				t.Errorf("/status says todayQuotaSource %q; want %q", st.Bing.TodayQuotaSource, tt.source)
			}
		})
	}
}
