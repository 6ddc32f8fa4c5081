package alert

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

func record(status string, channels map[string]*model.ChannelStats, errs ...string) *model.Record {
	return &model.Record{ID: 7, Site: "blog", Status: status, Channels: channels, Errors: errs,
		StartedAt: time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC)}
}

func TestOf(t *testing.T) {
	failing := record(model.StatusPartial, map[string]*model.ChannelStats{
		"indexnow": {Submitted: 20, Failed: 180},
		"bing":     {Submitted: 99, Failed: 1},
	}, "indexnow: HTTP 503 Service Unavailable from https://api.indexnow.org/indexnow", "indexnow: timeout", "bing: HTTP 500")
	got := Of(failing, 0.10, model.Later{})
	if len(got) != 1 {
		t.Fatalf("alerts %+v; want one, for indexnow (bing's 1%% is under 10%%)", got)
	}
	a := got[0]
	if a.Channel != "indexnow" || a.Failed != 180 || a.Attempted != 200 || a.Rate != 0.9 || a.RunID != 7 ||
		len(a.Causes) != 2 || a.Causes[0] != "HTTP 503 Service Unavailable from https://api.indexnow.org/indexnow" ||
		!strings.Contains(a.Action, "the failed URLs go first next run") {
		t.Errorf("alert %+v", a)
	}
	if !strings.Contains(a.Text, "site blog, run 7 (partial): indexnow failed 180 of 200 URLs (90%, above 10%). Cause: HTTP 503") || a.Content != a.Text {
		t.Errorf("text %q", a.Text)
	}

	key := record(model.StatusFailed, map[string]*model.ChannelStats{"bing": {Failed: 100}},
		"bing: HTTP 401 Unauthorized: the API key is not valid: check bing.apiKey")
	if got := Of(key, 0.10, model.Later{}); len(got) != 1 || !strings.Contains(got[0].Action, "Fix the key as the error says, then run `sitepush check --site blog`") {
		t.Errorf("a bad key: %+v", got)
	}
	noSitemap := record(model.StatusFailed, map[string]*model.ChannelStats{}, "sitemap https://blog.example/s.xml: HTTP 404")
	noSitemap.Sitemaps.Failed = 1
	if got := Of(noSitemap, 0.10, model.Later{}); len(got) != 1 || got[0].Channel != "" || got[0].Rate != 1 || !strings.Contains(got[0].Action, "no sitemap of pages could be read") {
		t.Errorf("no sitemap: %+v", got)
	}
	if got := Of(record(model.StatusOK, map[string]*model.ChannelStats{"indexnow": {Submitted: 10}}), 0, model.Later{}); len(got) != 0 {
		t.Errorf("a good run: %+v", got)
	}
}

// receiver is a webhook that answers the statuses given, then 204.
type receiver struct {
	mu       sync.Mutex
	statuses []int
	got      []Alert
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var a Alert
	if err := json.NewDecoder(req.Body).Decode(&a); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if len(r.statuses) > 0 {
		status := r.statuses[0]
		r.statuses = r.statuses[1:]
		w.WriteHeader(status)
		return
	}
	r.got = append(r.got, a)
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) alerts() []Alert {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Alert(nil), r.got...)
}

func newSender(t *testing.T, rcv *receiver) *Sender {
	srv := httptest.NewServer(rcv)
	t.Cleanup(srv.Close)
	s := New(&config.Webhook{URL: srv.URL + "/hooks/secret-token", FailureRate: 0.1}, srv.Client(), "sitepush-test")
	s.Backoff = []time.Duration{time.Millisecond, time.Millisecond}
	return s
}

func TestSend(t *testing.T) {
	rcv := &receiver{statuses: []int{503, 429}}
	s := newSender(t, rcv)
	if err := s.Send(context.Background(), Alert{Site: "blog", Text: "x"}); err != nil || len(rcv.alerts()) != 1 {
		t.Fatalf("after 503 and 429: %v, %d received", err, len(rcv.alerts()))
	}
	rcv.statuses = []int{503, 503, 503}
	if err := s.Send(context.Background(), Alert{Site: "blog"}); err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("retries exhausted: %v", err)
	}
	rcv.statuses = []int{404}
	if err := s.Send(context.Background(), Alert{Site: "blog"}); err == nil || !strings.Contains(err.Error(), "HTTP 404 Not Found; check webhook.url") || len(rcv.statuses) != 0 {
		t.Errorf("a 404 is not retried: %v", err)
	}
	down := New(&config.Webhook{URL: "http://127.0.0.1:1/hooks/secret-token"}, http.DefaultClient, "ua")
	down.Backoff = nil
	if err := down.Send(context.Background(), Alert{Site: "blog"}); err == nil || strings.Contains(err.Error(), "secret-token") {
		t.Errorf("an unreachable webhook: %v (the URL's token must not show)", err)
	}
}

func TestQueue(t *testing.T) {
	rcv := &receiver{}
	q := NewQueue(newSender(t, rcv), slog.New(slog.NewTextHandler(io.Discard, nil)))
	q.Finished(record(model.StatusFailed, map[string]*model.ChannelStats{"indexnow": {Failed: 3}}, "indexnow: HTTP 503"))
	q.Finished(record(model.StatusOK, map[string]*model.ChannelStats{"indexnow": {Submitted: 3}}))
	q.Close(5 * time.Second)
	if got := rcv.alerts(); len(got) != 1 || got[0].Channel != "indexnow" || got[0].Failed != 3 {
		t.Errorf("received %+v", got)
	}
	q.Finished(record(model.StatusFailed, map[string]*model.ChannelStats{"indexnow": {Failed: 3}}))
	var none *Queue
	none.Finished(record(model.StatusFailed, nil))
	none.Close(time.Second)
}

// TestActionWithAStateThatKeepsNothing: each action that says what becomes of the failed URLs
// promises, with a state that keeps them, that a later run takes them up, and with state: memory,
// which keeps nothing, says to run again instead.
func TestActionWithAStateThatKeepsNothing(t *testing.T) {
	tests := []struct{ cause, kept, forgets string }{
		{"HTTP 403 Forbidden: key not valid", "the URLs stay due until then.", "nothing is kept for a later run (state: memory): run again once it is fixed."},
		{"HTTP 429 Too Many Requests", "the URLs go first next run.", "run again to send the URLs."},
		{"HTTP 503 Service Unavailable", "the failed URLs go first next run;", "run again to send the failed URLs;"},
	}
	for _, tt := range tests {
		rec := record(model.StatusFailed, map[string]*model.ChannelStats{"indexnow": {Failed: 5}}, "indexnow: "+tt.cause)
		for _, forgets := range []bool{false, true} {
			got := Of(rec, 0.10, model.Later{Forgets: forgets})
			if len(got) != 1 {
				t.Fatalf("%s: alerts %+v, want one", tt.cause, got)
			}
			want, promise := tt.kept, false
			if forgets {
				want, promise = tt.forgets, strings.Contains(got[0].Action, "state: memory")
			}
			if !strings.Contains(got[0].Action, want) || forgets && (!promise || strings.Contains(got[0].Action, "next run") || strings.Contains(got[0].Action, "until then")) {
				t.Errorf("%s, forgets %t: action %q, want %q in it", tt.cause, forgets, got[0].Action, want)
			}
		}
	}
}
