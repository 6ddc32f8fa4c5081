//go:build linux

package worker

import (
	"context"
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

// BenchmarkWorkerdTick measures what the ticks of a 10,000-URL site due every 10 minutes cost
// the Worker under workerd — the CPU of workerd's whole process (which includes the local
// runtime's own KV and proxy: an upper bound of what Cloudflare bills) — against the changed
// tick run natively over a KV in memory. Each iteration starts the Worker twice on the same
// local KV, a new isolate each time, and fires:
//
//	cold-not-due     the first event of an isolate: a tick with nothing due
//	cold-unchanged   the first event of an isolate: a due tick, the sitemap as the last run left it
//	not-due          then a tick with nothing due
//	unchanged        a due tick, nothing changed
//	changed          a due tick, 10 pages changed
//
// Each case's log line (its KV operations) is logged with -v.
//
//	go test -run - -bench WorkerdTick -benchtime 3x -v ./internal/worker
func BenchmarkWorkerdTick(b *testing.B) {
	const size = 10_000
	lb := newLoopback(b)
	list := pages(size, "2026-01-01")
	lb.publish("/sitemap.xml", list...)
	config := fmt.Sprintf(`{"defaults": {"schedule": "*/10 * * * *"}, "sites": [{"id": "big", "sitemaps": ["%s/sitemap.xml"],
		"indexnow": {"enabled": true, "key": "%s", "endpoints": ["%s"]}}]}`, lb.site, testKey, lb.indexnow)
	vars := map[string]string{ConfigVar: config, SubrequestsVar: "1000"}
	dir := b.TempDir()
	at := time.Now().UTC().Truncate(10 * time.Minute)
	w := startWorkerdOn(b, vars, dir)
	if code, body := w.tick(at); code != http.StatusOK || len(lb.engine.Accepted()) != size {
		b.Fatalf("first tick: %d %s; IndexNow got %d", code, body, len(lb.engine.Accepted()))
	}
	w.stop()

	changes := 0
	changeTen := func() {
		for j := range 10 {
			k := (changes*10 + j) % size
			list[k] = fmt.Sprintf("/p/%d 2026-02-%02d", k, 1+changes%27)
		}
		changes++
		lb.publish("/sitemap.xml", list...)
	}
	cpu := map[string]time.Duration{}
	lines := map[string]string{}
	measure := func(w *workerd, name string, t time.Time) {
		from := len(w.log.String())
		start := w.cpuOf(b)
		if code, body := w.tick(t); code != http.StatusOK {
			b.Fatalf("%s: tick at %s: %d %s", name, t, code, body)
		}
		lines[name] = w.doneLine(from) // the line is written once the tick is done
		cpu[name] += w.cpuOf(b) - start
	}
	b.ResetTimer()
	for range b.N {
		w := startWorkerdOn(b, vars, dir)
		measure(w, "cold-not-due", at.Add(5*time.Minute))
		w.stop()
		w = startWorkerdOn(b, vars, dir)
		at = at.Add(10 * time.Minute)
		measure(w, "cold-unchanged", at)
		measure(w, "not-due", at.Add(5*time.Minute))
		at = at.Add(10 * time.Minute)
		measure(w, "unchanged", at)
		changeTen()
		at = at.Add(10 * time.Minute)
		measure(w, "changed", at)
		w.stop()
	}
	b.StopTimer()
	if got := len(lb.engine.Accepted()); got != size+10*b.N {
		b.Fatalf("IndexNow got %d URLs, want %d", got, size+10*b.N)
	}

	// The changed ticks natively, over a KV in memory (the process's CPU includes the loopback
	// fakes' answers).
	app := New(Env{Var: func(name string) (string, bool) { v, ok := vars[name]; return v, ok }, KV: &kvstate.MemKV{},
		Transport: http.DefaultTransport, WaitUntil: func(f func()) { f() }, Logger: slog.New(slog.DiscardHandler)})
	at = at.Add(10 * time.Minute)
	if _, err := app.Tick(context.Background(), at); err != nil {
		b.Fatal(err)
	}
	var nativeCPU time.Duration
	for range b.N {
		changeTen()
		at = at.Add(10 * time.Minute)
		start := processCPU()
		if _, err := app.Tick(context.Background(), at); err != nil {
			b.Fatal(err)
		}
		nativeCPU += processCPU() - start
	}
	for _, name := range []string{"cold-not-due", "cold-unchanged", "not-due", "unchanged", "changed"} {
		b.ReportMetric(float64(cpu[name].Milliseconds())/float64(b.N), name+"-cpu-ms")
		b.Logf("%s: %s", name, lines[name])
	}
	b.ReportMetric(float64(nativeCPU.Microseconds())/1000/float64(b.N), "native-changed-cpu-ms")
}

// processCPU is the CPU time this process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWorkerdMemory measures the memory of a 100,000-URL site's runs under workerd: its
// first run, then a run where 100 pages changed, each in a new isolate; the ticks' log lines say
// what Go's runtime holds (memory_mb) and the WebAssembly memory (wasm_mb), and -v logs them
// with the CPU of workerd's process.
//
//	go test -run - -bench WorkerdMemory -benchtime 1x -v ./internal/worker
func BenchmarkWorkerdMemory(b *testing.B) {
	const size = 100_000
	lb := newLoopback(b)
	list := pages(size, "2026-01-01")
	lb.publish("/sitemap.xml", list...)
	config := fmt.Sprintf(`{"defaults": {"schedule": "*/10 * * * *"}, "sites": [{"id": "big", "sitemaps": ["%s/sitemap.xml"],
		"indexnow": {"enabled": true, "key": "%s", "endpoints": ["%s"]}}]}`, lb.site, testKey, lb.indexnow)
	vars := map[string]string{ConfigVar: config, SubrequestsVar: "1000"}
	for range b.N {
		dir := b.TempDir()
		at := time.Now().UTC().Truncate(10 * time.Minute)
		sent := len(lb.engine.Accepted())
		for _, name := range []string{"first", "changed"} {
			if name == "changed" {
				for k := range 100 {
					list[k*997%size] = fmt.Sprintf("/p/%d 2026-02-01", k*997%size)
				}
				lb.publish("/sitemap.xml", list...)
				at = at.Add(10 * time.Minute)
			}
			w := startWorkerdOn(b, vars, dir)
			from, cpu := len(w.log.String()), w.cpuOf(b)
			if code, body := w.tick(at); code != http.StatusOK {
				b.Fatalf("%s: %d %s", name, code, body)
			}
			line := w.doneLine(from)
			b.Logf("%s: %s (workerd CPU %s)", name, line, w.cpuOf(b)-cpu)
			w.stop()
		}
		if got := len(lb.engine.Accepted()) - sent; got != size+100 {
			b.Fatalf("IndexNow got %d URLs, want %d", got, size+100)
		}
		for k := range 100 {
			list[k*997%size] = fmt.Sprintf("/p/%d 2026-01-01", k*997%size)
		}
		lb.publish("/sitemap.xml", list...)
	}
}
