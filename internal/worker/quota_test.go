package worker

import (
	"encoding/json"
	"testing"
	"time"
)

// TestStatusTellsBingsQuota: with a key Bing grants 25 a day and dailyQuota 40, the Worker's
// /status says 0 left once the 25 went — what Bing answered the ticks, kept in KV, less what went
// since — and that Bing is the reason, as serve's /status and the dashboard do.
func TestStatusTellsBingsQuota(t *testing.T) {
	w := newWorld(t)
	w.bing.Keys[bingKey] = 25
	w.publish(pages(60, "2026-01-01")...)
	w.tick(t0)
	w.tick(t0.Add(time.Minute))
	if n := len(w.bing.Accepted()); n != 25 {
		t.Fatalf("Bing got %d URLs; want the 25 it grants\n%s", n, w.log.String())
	}
	code, body := w.call("GET", "/status?site=demo", testToken)
	var status struct {
		Bing struct {
			DailyQuota          int    `json:"dailyQuota"`
			TodayQuotaUsed      *int   `json:"todayQuotaUsed"`
			TodayQuotaRemaining *int   `json:"todayQuotaRemaining"`
			TodayQuotaSource    string `json:"todayQuotaSource"`
			BingRemaining       *int   `json:"bingRemaining"`
		} `json:"bing"`
	}
	if err := json.Unmarshal([]byte(body), &status); err != nil || code != 200 {
		t.Fatalf("/status: %d %s", code, body)
	}
	b := status.Bing
	if b.TodayQuotaRemaining == nil || *b.TodayQuotaRemaining != 0 || b.TodayQuotaSource != "Bing's grant of 25" ||
		b.TodayQuotaUsed == nil || *b.TodayQuotaUsed != 25 || b.BingRemaining == nil || *b.BingRemaining != 0 || b.DailyQuota != 40 {
		t.Errorf("/status's Bing block %s; want 0 left today, as Bing says, 25 used of 40", body)
	}
}
