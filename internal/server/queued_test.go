package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/runner"
	"github.com/sitepush/sitepush/internal/scheduler"
)

// stuck is a channel whose delivery lasts until its run is stopped: a run that holds its slot.
type stuck struct{}

func (stuck) Name() string { return "indexnow" }

func (stuck) Deliver(ctx context.Context, _ *channel.Queue, _ channel.Reporter) error {
	<-ctx.Done()
	return nil
}

// TestTriggerQueued: with every slot of serve.concurrency taken, a trigger answers 202 with the
// run queued (no id yet), the same trigger again too, and so do chosen URLs; another run asked of a site queued (chosen
// URLs) is refused with 409, as a trigger of a site being run is.
func TestTriggerQueued(t *testing.T) {
	w := newWorld(t)
	for _, id := range []string{"second", "third"} {
		w.call("POST", "/api/sites", `{"id": "`+id+`", "sitemaps": ["`+w.site.URL+`/sitemap.xml"], "feed": {"enabled": true}}`)
	}
	runs := scheduler.NewRuns(runner.New(w.store), func(*config.Site, string) []channel.Channel { return []channel.Channel{stuck{}} },
		nil, slog.New(slog.NewTextHandler(io.Discard, nil)), 1)
	t.Cleanup(func() { runs.Shutdown(5 * time.Second) })
	w.api.runs = runs

	type started struct {
		RunID  *int64 `json:"runId"`
		Status string `json:"status"`
		URLs   int    `json:"urls"`
	}
	read := func(body string) started {
		var s started
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return s
	}
	if code, body := w.call("POST", "/trigger?site=filesite", ""); code != 202 || read(body).RunID == nil || read(body).Status != "running" {
		t.Fatalf("the first trigger, a slot free: %d %s; want 202, running with its id", code, body)
	}
	for range 2 {
		if code, body := w.call("POST", "/trigger?site=second", ""); code != 202 || read(body).RunID != nil || read(body).Status != "queued" {
			t.Errorf("a trigger, every slot taken: %d %s; want 202, queued without an id", code, body)
		}
	}
	if code, body := w.call("POST", "/api/sites/second/urls", `{"urls": ["`+w.site.URL+`/blog/post-1"]}`); code != 409 || !strings.Contains(body, "waits in the queue already") {
		t.Errorf("chosen URLs for a site whose trigger waits: %d %s; want 409", code, body)
	}
	if code, body := w.call("POST", "/trigger?site=filesite", ""); code != 409 || !strings.Contains(body, "is being run now") {
		t.Errorf("a trigger of the site running: %d %s; want 409", code, body)
	}
	if code, body := w.call("POST", "/api/sites/third/urls", `{"urls": ["`+w.site.URL+`/blog/post-1"]}`); code != 202 || read(body).RunID != nil || read(body).Status != "queued" || read(body).URLs != 1 {
		t.Errorf("chosen URLs, every slot taken: %d %s; want 202, queued, 1 URL", code, body)
	}
	if runs.Queued() != 2 {
		t.Errorf("%d runs queued, want 2", runs.Queued())
	}
}
