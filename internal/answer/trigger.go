package answer

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// TriggerChannel reads the channel a run is asked for (none means "all") and checks that the site
// has it; otherwise it answers 400, naming the rule, and ok is false.
func TriggerChannel(w http.ResponseWriter, site *config.Site, channel string) (_ string, ok bool) {
	if channel == "" {
		channel = "all"
	}
	switch {
	case channel != "all" && !slices.Contains(config.Channels, channel):
		Errorf(w, http.StatusBadRequest, "channel must be one of all, %s; got %q", strings.Join(config.Channels, ", "), channel)
	case channel != "all" && !site.Enabled(channel):
		Errorf(w, http.StatusBadRequest, "%s (%s.enabled is false for site %q)", config.ChannelOff(channel), channel, site.ID)
	case !site.Enabled("all"):
		Errorf(w, http.StatusBadRequest, "site %q has no channel enabled: enable %s", site.ID, config.ChannelList())
	default:
		return channel, true
	}
	return "", false
}

// NoTriggerSite answers 400 to /trigger without a site.
func NoTriggerSite(w http.ResponseWriter) {
	Errorf(w, http.StatusBadRequest, "site is required: /trigger?site=ID[&channel=all|%s]", strings.Join(config.Channels, "|"))
}

// Triggered answers 202 for a run started, or queued when runID is 0 (scheduler.Queued).
func Triggered(w http.ResponseWriter, runID int64, site, channel string) {
	WriteJSON(w, http.StatusAccepted, Started(runID, site, channel))
}

// Started is the body of a 202 for a run started — its runId, status running — or queued when
// runID is 0: every slot of serve.concurrency is taken, and the run has no id until it starts
// (runId null, status queued; the site's /status and runs show it then).
func Started(runID int64, site, channel string) map[string]any {
	body := map[string]any{"runId": runID, "site": site, "channel": channel, "status": model.StatusRunning, "statusUrl": "/status?site=" + site}
	if runID == 0 {
		body["runId"], body["status"] = nil, StatusQueued
	}
	return body
}

// StatusQueued is the status of a triggered run that waits for a slot: it has no record yet.
const StatusQueued = "queued"

// IntParam reads a whole-number query parameter from lo to hi, def when absent; otherwise it
// answers 400 and ok is false.
func IntParam(w http.ResponseWriter, r *http.Request, name string, def, lo, hi int) (_ int, ok bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		Errorf(w, http.StatusBadRequest, "%s must be a whole number from %d to %d, got %q", name, lo, hi, v)
		return 0, false
	}
	return n, true
}
