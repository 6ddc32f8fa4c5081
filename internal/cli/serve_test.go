package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/enginetest"
)

// hook is a webhook receiver that keeps what it gets.
type hook struct {
	mu  sync.Mutex
	got []map[string]any
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var a map[string]any
	if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.got = append(h.got, a)
	h.mu.Unlock()
}

func (h *hook) alerts() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.got...)
}

func TestServe(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(20)
	alerts := &hook{}
	receiver := httptest.NewServer(alerts)
	defer receiver.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := readFile(t, w.config)
	cfg = strings.Replace(cfg, "state: sqlite:state.db", fmt.Sprintf("state: sqlite:state.db\nlisten: %s\nadminToken: serve-test-token-1234\nwebhook: {url: %s/hooks/t0k3n}", addr, receiver.URL), 1)
	writeFile(t, w.config, cfg)
	// The engine fails most submissions: all of them, 4 tries each.
	for range 4 {
		w.eng.Fail(enginetest.Fault{Status: http.StatusServiceUnavailable})
	}

	ctx, stop := context.WithCancel(context.Background())
	errOut := &enginetest.Log{}
	done := make(chan int, 1)
	go func() { done <- Main(ctx, []string{"serve", "--config", w.config}, io.Discard, errOut) }()
	base := "http://" + addr
	waitFor(t, "serve to answer", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
	req, _ := http.NewRequest("POST", base+"/trigger?site=demo", nil)
	req.Header.Set("Authorization", "Bearer serve-test-token-1234")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 202 {
		t.Fatalf("trigger: %v %v", resp, err)
	}
	resp.Body.Close()
	waitFor(t, "the alert", func() bool { return len(alerts.alerts()) == 1 })
	a := alerts.alerts()[0]
	if a["site"] != "demo" || a["channel"] != "indexnow" || a["failed"] != 20.0 || !strings.Contains(a["text"].(string), "indexnow failed 20 of 20 URLs") {
		t.Errorf("alert %v", a)
	}

	stopped := time.Now()
	stop()
	select {
	case code := <-done:
		if code != exitOK || time.Since(stopped) > 5*time.Second {
			t.Errorf("serve stopped with %d after %v\n%s", code, time.Since(stopped), errOut)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("serve did not stop within 10 s of the signal\n%s", errOut)
	}
	if log := errOut.String(); !strings.Contains(log, "sitepush serve started") || !strings.Contains(log, "msg=stopped") || strings.Contains(log, "t0k3n") {
		t.Errorf("log:\n%s", log)
	}
}

func TestServeNeedsAToken(t *testing.T) {
	w := newTestWorld(t, "")
	if code, _, errOut := run(t, "serve", "--config", w.config); code != exitUsage || !strings.Contains(errOut, "sitepush serve needs adminToken") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(w.config), "state.db")); err == nil {
		t.Error("serve created the state before refusing to start")
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

func TestRunSendsAlerts(t *testing.T) {
	w := newTestWorld(t, "")
	w.publish(5)
	alerts := &hook{}
	receiver := httptest.NewServer(alerts)
	defer receiver.Close()
	cfg := strings.Replace(readFile(t, w.config), "state: sqlite:state.db", "state: sqlite:state.db\nwebhook: {url: "+receiver.URL+", failureRate: 0.5}", 1)
	writeFile(t, w.config, cfg)
	w.files["/"+testKey+".txt"] = "not the key"
	if code, _, _ := run(t, "run", "--config", w.config); code != exitFailed || len(alerts.alerts()) != 1 ||
		!strings.Contains(alerts.alerts()[0]["action"].(string), "Fix the key as the error says") {
		t.Errorf("exit %d, alerts %v", code, alerts.alerts())
	}
	w.files["/"+testKey+".txt"] = testKey
	if code, _, _ := run(t, "run", "--config", w.config); code != exitOK || len(alerts.alerts()) != 1 {
		t.Errorf("a good run alerted: exit %d, %v", code, alerts.alerts())
	}
}
