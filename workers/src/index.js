// The Worker's entry. It starts sitepush — Go, compiled to WebAssembly by build.sh — at the first
// event of an isolate that needs it (the runtime refuses Go's request for random bytes at global
// scope) and hands it that event and every one after, one at a time. If Go stops (a crash), the
// next event starts it again. A tick with no site due, and /healthz, are answered here from one
// KV value, the schedule that Go plans at each tick, without starting Go. See
// ../docs/cloudflare.md.
import "../build/wasm_exec.js";
import wasm from "../build/sitepush.wasm";
import { build } from "../build/build.js";

let go = null;
let ready = null;
let memory = null;

function sitepush() {
  if (ready === null || go.exited) {
    const current = (go = new Go());
    ready = new Promise((resolve, reject) => {
      globalThis.__sitepushReady = () => resolve(globalThis.sitepush);
      WebAssembly.instantiate(wasm, current.importObject)
        .then((instance) => {
          memory = instance.exports.mem;
          return current.run(instance);
        })
        .then(() => reject(new Error("sitepush stopped before it was ready")), reject);
    });
    ready.catch(() => {
      ready = null;
    });
  }
  return ready;
}

// Go runs every goroutine it can whenever JS calls into it, and the Workers runtime ties each
// fetch and timer to the event during which it starts: a run going on after its answer
// (waitUntil) would have its requests and waits cut off with the end of a shorter event that
// called into Go meanwhile. So events take turns: one is handed to Go when the one before has
// ended, its waitUntil work included.
let last = Promise.resolve();

// A request that waits longer than this for its turn is answered 503 (a run is going on).
const MAX_WAIT_MS = 20_000;

function inTurn(ctx, handle) {
  const work = [];
  const own = {
    waitUntil(promise) {
      work.push(promise);
      ctx.waitUntil(promise);
    },
    passThroughOnException() {
      ctx.passThroughOnException();
    },
  };
  const result = last.then(() => handle(own));
  const ended = result.then(
    () => Promise.allSettled(work),
    () => Promise.allSettled(work),
  );
  last = ended;
  ctx.waitUntil(ended);
  return result;
}

function busy() {
  return new Response(
    JSON.stringify({ error: "a run is going on in this Worker's isolate: try again in a moment" }) + "\n",
    { status: 503, headers: { "Content-Type": "application/json", "Retry-After": "10" } },
  );
}

// The schedule is planned under a fingerprint of the build and the vars (secrets included): a
// deploy, or a var changed, makes the plan say nothing until Go plans again.
const fingerprints = new WeakMap();

async function fingerprint(env) {
  let done = fingerprints.get(env);
  if (done === undefined) {
    const vars = Object.keys(env)
      .sort()
      .filter((k) => typeof env[k] === "string" || (typeof env[k] === "object" && env[k] !== null && (Array.isArray(env[k]) || Object.getPrototypeOf(env[k]) === Object.prototype)))
      .map((k) => [k, env[k]]);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify([build, vars])));
    done = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    fingerprints.set(env, done);
  }
  return done;
}

// planned returns the schedule when it was planned under this build and these vars; null when it
// says nothing (none yet, another plan, no namespace bound, a read that failed: Go tells why).
async function planned(env, print) {
  if (typeof env.STATE !== "object" || env.STATE === null) return null;
  try {
    const plan = await env.STATE.get("schedule", "json");
    return plan !== null && plan.env === print && typeof plan.sites === "object" ? plan : null;
  } catch {
    return null;
  }
}

// due reports whether a site of the plan is due at the time at (Unix ms): its next time has come
// (0: the next tick), or the plan does not say.
function due(plan, at) {
  return Object.values(plan.sites).some((site) => !(site !== null && (site.next === null || site.next > at)));
}

// logTick writes the tick's one line, as Go's logger writes its own: go=skipped (Go not started),
// cold (started for this tick) or warm; ms, the tick's time by the runtime's clock.
function logTick(level, msg, fields) {
  const line = [`time=${new Date().toISOString()}`, `level=${level}`, `msg="${msg}"`];
  for (const [k, v] of Object.entries(fields)) line.push(`${k}=${v}`);
  console.log(line.join(" "));
}

export default {
  async fetch(request, env, ctx) {
    const print = await fingerprint(env);
    if (request.method === "GET" && new URL(request.url).pathname === "/healthz" && (await planned(env, print)) !== null) {
      // The namespace answered a read, and the configuration of this plan loaded.
      return new Response(JSON.stringify({ status: "ok" }) + "\n", {
        headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
      });
    }
    let timer;
    let late = false;
    const waited = new Promise((resolve) => {
      timer = setTimeout(() => {
        late = true;
        resolve(busy());
      }, MAX_WAIT_MS);
    });
    const answered = inTurn(ctx, async (own) => {
      clearTimeout(timer);
      if (late) return null; // answered busy already
      return (await sitepush()).fetch(request, env, own, print);
    });
    return Promise.race([answered, waited]);
  },
  async scheduled(event, env, ctx) {
    const began = performance.now();
    const ms = () => (performance.now() - began).toFixed(1);
    const print = await fingerprint(env);
    const plan = await planned(env, print);
    if (plan !== null && !due(plan, event.scheduledTime)) {
      logTick("INFO", "tick done", { go: "skipped", ms: ms(), subrequests: 0, kv_reads: 1, kv_writes: 0, kv_deletes: 0, kv_lists: 0 });
      return;
    }
    await inTurn(ctx, async (own) => {
      const mode = ready !== null && !go.exited ? "warm" : "cold";
      try {
        const s = await (await sitepush()).scheduled(event, env, own, print);
        logTick("INFO", "tick done", {
          go: mode,
          ms: ms(),
          subrequests: s.subrequests,
          kv_reads: s.kv_reads + 1, // the schedule, read here
          kv_writes: s.kv_writes,
          kv_deletes: s.kv_deletes,
          kv_lists: s.kv_lists,
          heap_mb: s.heap_mb,
          memory_mb: s.memory_mb,
          wasm_mb: memory.buffer.byteLength >> 20,
        });
      } catch (e) {
        logTick("ERROR", "tick failed", { go: mode, ms: ms() });
        throw e;
      }
    });
  },
};
