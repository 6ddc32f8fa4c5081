package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// Sender posts alerts to the webhook. Its URL often holds a token: it never appears in errors.
type Sender struct {
	url       string
	threshold float64
	client    *http.Client
	userAgent string
	// Backoff are the waits before each retry after a network error, 429 or 5xx.
	Backoff []time.Duration
	// Timeout bounds one attempt.
	Timeout time.Duration
	// Later words what an alert's action says becomes of the failed URLs: set Forgets for a
	// state that keeps nothing for a later run (`sitepush run` with state: memory).
	Later model.Later
}

// New returns the sender of webhook w; nil when there is none.
func New(w *config.Webhook, client *http.Client, userAgent string) *Sender {
	if w == nil {
		return nil
	}
	return &Sender{url: w.URL, threshold: w.FailureRate, client: client, userAgent: userAgent,
		Backoff: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, Timeout: 10 * time.Second}
}

// Alerts returns the alerts a run calls for; none when s is nil.
func (s *Sender) Alerts(rec *model.Record) []Alert {
	if s == nil || rec.DryRun {
		return nil
	}
	return Of(rec, s.threshold, s.Later)
}

// Send posts an alert, trying again after network errors, 429 and 5xx.
func (s *Sender) Send(ctx context.Context, a Alert) error {
	body, err := json.Marshal(a)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err, retry := s.post(ctx, body)
		if err == nil || !retry || attempt >= len(s.Backoff) {
			if err != nil {
				return fmt.Errorf("the alert about site %q could not be sent to the webhook: %w", a.Site, err)
			}
			return nil
		}
		if channel.Sleep(ctx, s.Backoff[attempt]) != nil {
			return fmt.Errorf("the alert about site %q could not be sent to the webhook: %w", a.Site, err)
		}
	}
}

// post makes one attempt; retry says whether another may do better.
func (s *Sender) post(ctx context.Context, body []byte) (error, bool) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return errors.New("webhook.url is not a URL sitepush can post to"), false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL
		}
		return err, true
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return nil, false
	case code == http.StatusTooManyRequests || code >= 500:
		return fmt.Errorf("the webhook answered HTTP %d %s", code, http.StatusText(code)), true
	default:
		return fmt.Errorf("the webhook answered HTTP %d %s; check webhook.url", code, http.StatusText(code)), false
	}
}

// Queue sends alerts in the background, so that no run waits for the webhook.
type Queue struct {
	sender *Sender
	logger *slog.Logger
	ch     chan Alert
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
}

// queueSize bounds the alerts waiting; more are dropped, with an error logged.
const queueSize = 100

// NewQueue starts sending the alerts of sender in the background; nil when sender is nil.
func NewQueue(sender *Sender, logger *slog.Logger) *Queue {
	if sender == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := &Queue{sender: sender, logger: logger, ch: make(chan Alert, queueSize), ctx: ctx, cancel: cancel}
	q.wg.Go(q.loop)
	return q
}

// Finished queues the alerts a run calls for, without waiting.
func (q *Queue) Finished(rec *model.Record) {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return // a run that outlived the shutdown: its record says it all
	}
	for _, a := range q.sender.Alerts(rec) {
		select {
		case q.ch <- a:
		default:
			q.logger.Error("alert dropped: too many alerts waiting for the webhook", "site", a.Site, "run", a.RunID)
		}
	}
}

// Close sends what is queued for at most wait, then stops.
func (q *Queue) Close(wait time.Duration) {
	if q == nil {
		return
	}
	q.mu.Lock()
	q.closed = true
	close(q.ch)
	q.mu.Unlock()
	t := time.AfterFunc(wait, q.cancel)
	q.wg.Wait()
	t.Stop()
	q.cancel()
}

func (q *Queue) loop() {
	for a := range q.ch {
		if err := q.sender.Send(q.ctx, a); err != nil {
			q.logger.Error("alert not sent", "site", a.Site, "run", a.RunID, "err", err)
		} else {
			q.logger.Info("alert sent", "site", a.Site, "run", a.RunID, "channel", a.Channel)
		}
	}
}
