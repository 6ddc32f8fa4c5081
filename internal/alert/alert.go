// Package alert posts an alert to the configured webhook when a run fails, or when a channel's
// share of failed submissions in a run exceeds webhook.failureRate. The JSON carries a `text` (and
// a `content`) field, so that Slack-, Mattermost- and Discord-style incoming webhooks show it as is.
package alert

import (
	"fmt"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/human"
	"github.com/sitepush/sitepush/internal/model"
)

// Alert is what the webhook receives.
type Alert struct {
	// Text is the alert for a person, shown by chat incoming webhooks; Content repeats it for
	// Discord's.
	Text    string `json:"text"`
	Content string `json:"content"`
	Site    string `json:"site"`
	RunID   int64  `json:"runId"`
	Status  string `json:"status"`
	// Channel is the failing channel, or "" when the run failed as a whole (no sitemap read).
	Channel string `json:"channel"`
	// Failed of Attempted URLs failed: a Rate above the threshold.
	Failed    int     `json:"failed"`
	Attempted int     `json:"attempted"`
	Rate      float64 `json:"rate"`
	Threshold float64 `json:"threshold"`
	// Causes are the run's first errors about the channel (a record keeps each error once).
	Causes    []string  `json:"causes"`
	Action    string    `json:"action"`
	StartedAt time.Time `json:"startedAt"`
}

// maxCauses is how many causes an alert lists.
const maxCauses = 3

// Of returns the alerts a finished run calls for: one per channel whose failed share of the URLs
// it tried exceeds threshold, or one for the run when it failed without such a channel; later
// words what becomes of the failed URLs.
func Of(rec *model.Record, threshold float64, later model.Later) []Alert {
	var out []Alert
	for _, name := range config.Channels {
		st, ok := rec.Channels[name]
		if !ok || st.Failed == 0 {
			continue
		}
		tried := st.Submitted + st.Failed
		rate := float64(st.Failed) / float64(tried)
		if rate <= threshold {
			continue
		}
		a := newAlert(rec, name, threshold, name+": ")
		a.Failed, a.Attempted, a.Rate = st.Failed, tried, rate
		a.Text = fmt.Sprintf("sitepush: site %s, run %d (%s): %s failed %d of %s (%.0f%%, above %.0f%%).",
			rec.Site, rec.ID, rec.Status, name, st.Failed, human.Count(tried, "URL"), rate*100, threshold*100)
		out = append(out, finish(a, later))
	}
	if len(out) == 0 && rec.Status == model.StatusFailed {
		a := newAlert(rec, "", threshold, "")
		a.Failed, a.Attempted = rec.Sitemaps.Failed, rec.Sitemaps.Read+rec.Sitemaps.Failed
		if a.Attempted > 0 {
			a.Rate = float64(a.Failed) / float64(a.Attempted)
		}
		a.Text = fmt.Sprintf("sitepush: site %s, run %d failed.", rec.Site, rec.ID)
		out = append(out, finish(a, later))
	}
	return out
}

func newAlert(rec *model.Record, channel string, threshold float64, prefix string) Alert {
	return Alert{Site: rec.Site, RunID: rec.ID, Status: rec.Status, Channel: channel, Threshold: threshold,
		Causes: causes(rec.Errors, prefix), StartedAt: rec.StartedAt}
}

// finish adds the action and completes the text.
func finish(a Alert, later model.Later) Alert {
	top := ""
	if len(a.Causes) > 0 {
		top = a.Causes[0]
		a.Text += " Cause: " + top + "."
	}
	a.Action = action(a.Site, a.Channel, top, later)
	a.Text += " " + a.Action
	a.Content = a.Text
	return a
}

// causes returns the first errors that start with prefix, without it.
func causes(errs []string, prefix string) []string {
	out := []string{}
	for _, e := range errs {
		if msg, ok := strings.CutPrefix(e, prefix); ok && len(out) < maxCauses {
			out = append(out, msg)
		}
	}
	return out
}

// action suggests what to do about the most frequent cause, and says what becomes of the URLs
// as later words it.
func action(site, channel, cause string, later model.Later) string {
	check := fmt.Sprintf("Run `sitepush check --site %s`", site)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(cause, w) {
				return true
			}
		}
		return false
	}
	switch {
	case channel == "":
		return check + ": no sitemap of pages could be read; the errors say which and why."
	case has("key not valid", "API key", "HTTP 401", "HTTP 403", "may not submit"):
		return "Fix the key as the error says, then " + strings.ToLower(check[:1]) + check[1:] + "; " + later.UntilFixed() + "."
	case has("HTTP 429"):
		return "The engine is throttling sitepush: raise indexnow.interval or lower indexnow.maxConcurrent; " + later.First("the URLs") + "."
	case has("HTTP 5", "timeout", "connection", "EOF", "no such host"):
		return "The engine or the network is failing: nothing to fix on your side, " + later.First("the failed URLs") + "; if it lasts, check the endpoint."
	}
	return check + " and read the run's errors (GET /api/sites/" + site + "/runs)."
}

// Test is an alert that says only text, to try the webhook (sitepush check --webhook).
func Test(text string) Alert {
	return Alert{Text: text, Content: text, Status: "test", Causes: []string{}, StartedAt: time.Now().UTC()}
}
