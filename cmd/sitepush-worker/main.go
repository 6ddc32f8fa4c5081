//go:build js && wasm

// Command sitepush-worker is sitepush as a Cloudflare Worker (docs/cloudflare.md): it binds the
// Worker — internal/worker, the same core as the sitepush command — to the Workers runtime
// through syscall/js. It builds only for GOOS=js GOARCH=wasm; workers/ builds it and holds the
// module that starts it at the first event of an isolate (the runtime refuses Go's request for
// random bytes at global scope) and hands it every event after.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"syscall/js"
	"time"

	"github.com/sitepush/sitepush/internal/kvstate"
	"github.com/sitepush/sitepush/internal/worker"
)

// memoryLimit keeps Go's memory within half the 128 MB of an isolate, which the module, the
// runtime's own and the JS side share: WebAssembly memory grows and is never given back, so it is
// Go's highest use. A 100,000-URL site's run (kvstate.DefaultEntries) holds about 40 MB at its
// peak, and takes 54–62 MB of WebAssembly memory under this limit (81 MB under 80 MB: the
// collector let the heap grow to it). Below it the collector runs a quarter as often as Go's
// default (gcPercent): in WebAssembly it has one thread, the invocation's, whose CPU is billed.
const (
	memoryLimit = 48 << 20
	gcPercent   = 400
)

func main() {
	debug.SetMemoryLimit(memoryLimit)
	debug.SetGCPercent(gcPercent)
	js.Global().Set("sitepush", js.ValueOf(map[string]any{
		"fetch":     js.FuncOf(onFetch),
		"scheduled": js.FuncOf(onScheduled),
	}))
	js.Global().Call("__sitepushReady")
	select {}
}

// onFetch is the fetch handler: (request, env, ctx, fingerprint) → a Promise of the Response.
func onFetch(_ js.Value, args []js.Value) any {
	request, env, ctx, fingerprint := args[0], args[1], args[2], args[3]
	return promise(func() (js.Value, error) {
		r, err := toRequest(request)
		if err != nil {
			return js.Null(), err
		}
		w := newResponse()
		app(env, ctx, fingerprint).ServeHTTP(w, r)
		return w.toJS(r.Method), nil
	})
}

// onScheduled is the scheduled handler: (event, env, ctx, fingerprint) → a Promise of what the
// tick spent, for the tick's log line, which the JS module writes. A configuration that does
// not load, or a state that cannot be read, rejects it: the Cron Trigger's event shows the
// failure.
func onScheduled(_ js.Value, args []js.Value) any {
	event, env, ctx, fingerprint := args[0], args[1], args[2], args[3]
	return promise(func() (js.Value, error) {
		at := time.UnixMilli(int64(event.Get("scheduledTime").Float())).UTC()
		spent, err := app(env, ctx, fingerprint).Tick(context.Background(), at)
		if err != nil {
			return js.Undefined(), err
		}
		return js.ValueOf(map[string]any{"subrequests": spent.Subrequests, "kv_reads": spent.KV.Reads, "kv_writes": spent.KV.Writes,
			"kv_deletes": spent.KV.Deletes, "kv_lists": spent.KV.Lists, "heap_mb": spent.HeapMB, "memory_mb": spent.MemoryMB}), nil
	})
}

// app is the Worker of one event's env and ctx, and the JS module's fingerprint of the build and
// the vars (worker.Env.Fingerprint).
func app(env, ctx, fingerprint js.Value) *worker.App {
	var kv kvstate.KV
	if ns := env.Get("STATE"); ns.Type() == js.TypeObject {
		kv = namespace{ns}
	}
	return worker.New(worker.Env{
		Var:       func(name string) (string, bool) { return envVar(env, name) },
		KV:        kv,
		Transport: manualRedirects{},
		WaitUntil: func(f func()) {
			ctx.Call("waitUntil", promise(func() (js.Value, error) { f(); return js.Undefined(), nil }))
		},
		Logger:      slog.New(slog.NewTextHandler(os.Stdout, nil)),
		Fingerprint: fingerprint.String(),
	})
}

// envVar reads a var or a secret. A var that wrangler.toml gives as a table or a list reaches
// the Worker as an object: it is read as its JSON, which the configuration's YAML reads too.
func envVar(env js.Value, name string) (string, bool) {
	switch v := env.Get(name); v.Type() {
	case js.TypeUndefined, js.TypeNull:
		return "", false
	case js.TypeString:
		return v.String(), true
	default:
		return js.Global().Get("JSON").Call("stringify", v).String(), true
	}
}

// manualRedirects sends requests through the runtime's fetch without following redirects, so
// that Go's client follows them itself: each hop counts as the subrequest it is on Cloudflare,
// and the sitemap reader's rules about redirects hold.
type manualRedirects struct{}

func (manualRedirects) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("js.fetch:redirect", "manual")
	return http.DefaultTransport.RoundTrip(r)
}
