package server

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/human"
)

// templateFuncs are the dashboard's formatting helpers: times in UTC with their age, numbers
// with thousands separators, durations, and the fix of an error.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"num":   human.Int,
		"count": human.Count,
		"wait":  waitLeft,
		"utc":   utc,
		"ago":   ago,
		"ms":    millis,
		"dur":   duration,
		"fix":   fixFor,
		"pct":   func(a, b int) int { return percent(a, b) },
		"add":   func(a, b int) int { return a + b },
		"dict":  dict,
		"i2f":   func(n int64) float64 { return float64(n) },
	}
}

// utc writes a time in UTC to the second; "—" for the zero time.
func utc(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// ago writes how long before now t was ("3 h ago"), or how long after ("in 5 min").
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	if d < 0 {
		return "in " + short(-d)
	}
	if d < time.Second {
		return "just now"
	}
	return short(d) + " ago"
}

// short writes a duration in its largest whole unit: 45 s, 3 min, 5 h, 2 d.
func short(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	}
	return fmt.Sprintf("%d d", int(d/(24*time.Hour)))
}

// millis writes milliseconds as a duration a person reads: 850 ms, 2.0 s.
func millis(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.1f s", ms/1000)
}

// duration writes how long from start to end took; "" when it has not ended.
func duration(start, end time.Time) string {
	if end.IsZero() {
		return ""
	}
	return millis(float64(end.Sub(start).Milliseconds()))
}

// percent is a of b in whole percent, within 0–100.
func percent(a, b int) int {
	if b <= 0 {
		return 0
	}
	return min(100, max(0, a*100/b))
}

// echo is a URL a request gave, as an answer repeats it: its first 200 bytes (whole characters),
// then "…" — a URL refused for its length is not sent back whole.
func echo(u string) string { return human.Clip(u, 200+len("…")) }

// fixFor returns what to do about an error of site, or "" when there is nothing to add to it. A
// command it gives names the site, ready to copy.
func fixFor(site, err string) string {
	has := func(s string) bool { return strings.Contains(strings.ToLower(err), s) }
	switch {
	case has("http 403"):
		return "The engine could not verify the key: check that keyLocation serves the key file, then retry the failed URLs."
	case has("http 422"):
		return "The engine refused URLs that are not on the key's host: check baseUrl and the sitemap's URLs."
	case has("http 429"):
		return "The engine asked sitepush to slow down: it waited and went on; lower batchSize or raise interval if it keeps happening."
	case has("http 5"):
		return "The engine failed: the URLs stay due and go again on the next run, or press Retry failed."
	case has("quota"):
		return "Bing's daily quota is spent: the URLs held go after 00:00 UTC; ask Bing for a larger quota if they pile up."
	case has("timeout"), has("deadline"):
		return "The engine did not answer in time: the URLs stay due and go again on the next run."
	case has("sitemap"):
		return "A sitemap could not be read: check that it answers at its URL (sitepush check --site " + site + ")."
	}
	return ""
}

// dict makes a map of its key and value arguments, for a template given several values.
func dict(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			m[k] = kv[i+1]
		}
	}
	return m
}

// waitLeft writes how long is left of a wait until until, at now, to the second: "37 s", "2 min 5 s".
func waitLeft(until, now time.Time) string {
	left := max(until.Sub(now), 0).Round(time.Second)
	if left < time.Minute {
		return fmt.Sprintf("%d s", int(left.Seconds()))
	}
	return fmt.Sprintf("%d min %d s", int(left.Minutes()), int(left.Seconds())%60)
}
