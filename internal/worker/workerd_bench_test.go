//go:build linux

package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/sitepush/sitepush/internal/kvstate"
)

// cpuOf is the CPU time the workerd processes of w have used so far (Linux's /proc).
func (w *workerd) cpuOf(b *testing.B) time.Duration {
	var ticks int64
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ... utime stime: after the ")" the fields count from 3.
		end := strings.LastIndexByte(string(stat), ')')
		name := string(stat[strings.IndexByte(string(stat), '(')+1 : end])
		f := strings.Fields(string(stat[end+2:]))
		if name != "workerd" || f[2] != strconv.Itoa(w.cmd.Process.Pid) {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + s
	}
	if ticks == 0 {
		b.Fatal("no workerd process in wrangler's group")
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// BenchmarkWorkerdTick measures what a tick of a 10,000-URL site with 10 changed costs the
// Worker under workerd: the CPU its isolate's thread spent (DevTools' profiler: what Cloudflare
// bills), and the CPU of the whole workerd process (an upper bound: it includes the local
// runtime's own KV and HTTP work), against the same tick run natively over a KV in memory,
// measured in the same run. It also reports the first event of a new isolate and a /healthz.
//
//	go test -run - -bench WorkerdTick -benchtime 20x ./internal/worker
func BenchmarkWorkerdTick(b *testing.B) {
	const size = 10_000
	lb := newLoopback(b)
	list := pages(size, "2026-01-01")
	lb.publish("/sitemap.xml", list...)
	config := fmt.Sprintf(`{"defaults": {"schedule": "* * * * *"}, "sites": [{"id": "big", "sitemaps": ["%s/sitemap.xml"],
		"indexnow": {"enabled": true, "key": "%s", "endpoints": ["%s"]}}]}`, lb.site, testKey, lb.indexnow)
	w := startWorkerd(b, map[string]string{ConfigVar: config, SubrequestsVar: "1000"})

	prof := newProfiler(b, w.inspector)
	before := w.cpuOf(b)
	coldIsolate := prof.busy(b, func() { w.call("GET", "/healthz", "") }) // the module instantiated, Go started
	cold := w.cpuOf(b) - before
	before = w.cpuOf(b)
	healthzIsolate := prof.busy(b, func() {
		for range 20 {
			w.call("GET", "/healthz", "")
		}
	}) / 20
	healthz := (w.cpuOf(b) - before) / 20
	at := time.Now().UTC().Truncate(time.Minute)
	if code, body := w.tick(at); code != http.StatusOK || len(lb.engine.Accepted()) != size {
		b.Fatalf("first tick: %d %s; IndexNow got %d", code, body, len(lb.engine.Accepted()))
	}

	changeTen := func(i int) {
		for j := range 10 {
			k := (i*10 + j) % size
			list[k] = fmt.Sprintf("/p/%d 2026-02-%02d", k, 1+i%27)
		}
		lb.publish("/sitemap.xml", list...)
	}
	var cpu, isolate time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		changeTen(i)
		start := w.cpuOf(b)
		b.StartTimer()
		at = at.Add(time.Minute)
		isolate += prof.busy(b, func() {
			if code, body := w.tick(at); code != http.StatusOK {
				b.Fatalf("tick: %d %s", code, body)
			}
		})
		b.StopTimer()
		cpu += w.cpuOf(b) - start
		b.StartTimer()
	}
	b.StopTimer()
	if got := len(lb.engine.Accepted()); got != size+10*b.N {
		b.Fatalf("IndexNow got %d URLs, want %d", got, size+10*b.N)
	}

	// The same ticks natively, over a KV in memory (the process's CPU includes the loopback
	// fakes' answers).
	kv := &kvstate.MemKV{}
	app := New(Env{Var: func(name string) (string, bool) {
		v, ok := map[string]string{ConfigVar: config, SubrequestsVar: "1000"}[name]
		return v, ok
	}, KV: kv, Transport: http.DefaultTransport, WaitUntil: func(f func()) { f() }, Logger: slog.New(slog.DiscardHandler)})
	at = at.Add(time.Minute)
	if err := app.Tick(context.Background(), at); err != nil {
		b.Fatal(err)
	}
	var nativeCPU time.Duration
	for i := range b.N {
		changeTen(b.N + i)
		at = at.Add(time.Minute)
		start := processCPU()
		if err := app.Tick(context.Background(), at); err != nil {
			b.Fatal(err)
		}
		nativeCPU += processCPU() - start
	}
	b.ReportMetric(float64(isolate.Microseconds())/1000/float64(b.N), "isolate-cpu-ms/tick")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "workerd-cpu-ms/tick")
	b.ReportMetric(float64(coldIsolate.Microseconds())/1000, "cold-isolate-cpu-ms")
	b.ReportMetric(float64(healthzIsolate.Microseconds())/1000, "healthz-isolate-cpu-ms")
	b.ReportMetric(float64(nativeCPU.Microseconds())/1000/float64(b.N), "native-cpu-ms/tick")
	b.ReportMetric(float64(cold.Milliseconds()), "cold-start-cpu-ms")
	b.ReportMetric(float64(healthz.Microseconds())/1000, "healthz-cpu-ms")
}

// processCPU is the CPU time this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profiler is a DevTools connection to the Worker's isolate (wrangler dev --inspector-port): its
// CPU profiles count the samples the isolate's thread spent working, which is what Cloudflare
// bills as CPU time, without the local runtime's own work (its KV, its proxy).
type profiler struct {
	ws *websocket.Conn
	id int
}

func newProfiler(b *testing.B, port int) *profiler {
	ws, err := websocket.Dial(fmt.Sprintf("ws://127.0.0.1:%d/ws", port), "", "http://127.0.0.1/")
	if err != nil {
		b.Fatalf("the Worker's inspector: %v", err)
	}
	b.Cleanup(func() { ws.Close() })
	p := &profiler{ws: ws}
	p.call(b, "Profiler.enable", nil)
	p.call(b, "Profiler.setSamplingInterval", map[string]any{"interval": 100})
	return p
}

// call sends a DevTools command and returns its result, skipping the events between.
func (p *profiler) call(b *testing.B, method string, params any) json.RawMessage {
	p.id++
	if err := websocket.JSON.Send(p.ws, map[string]any{"id": p.id, "method": method, "params": params}); err != nil {
		b.Fatalf("%s: %v", method, err)
	}
	for {
		var msg struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := websocket.JSON.Receive(p.ws, &msg); err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		if msg.ID == p.id {
			if msg.Error != nil {
				b.Fatalf("%s: %s", method, msg.Error.Message)
			}
			return msg.Result
		}
	}
}

// busy runs f under the profiler and returns the time the isolate's thread was not idle.
func (p *profiler) busy(b *testing.B, f func()) time.Duration {
	p.call(b, "Profiler.start", nil)
	f()
	var out struct {
		Profile struct {
			Nodes []struct {
				ID        int
				CallFrame struct{ FunctionName string }
			}
			Samples    []int
			TimeDeltas []int64
		}
	}
	raw := p.call(b, "Profiler.stop", nil)
	if err := json.Unmarshal(raw, &out); err != nil {
		b.Fatal(err)
	}
	if dump := os.Getenv("DUMP_PROFILE"); dump != "" {
		var whole struct{ Profile json.RawMessage }
		json.Unmarshal(raw, &whole)
		os.WriteFile(dump, whole.Profile, 0o644)
	}
	idle := map[int]bool{}
	for _, n := range out.Profile.Nodes {
		idle[n.ID] = n.CallFrame.FunctionName == "(idle)"
	}
	var busy time.Duration
	for i, s := range out.Profile.Samples {
		if !idle[s] && i+1 < len(out.Profile.TimeDeltas) {
			busy += time.Duration(out.Profile.TimeDeltas[i+1]) * time.Microsecond
		}
	}
	return busy
}
