// The Worker's entry. It starts sitepush — Go, compiled to WebAssembly by build.sh — at the first
// event of an isolate (the runtime refuses Go's request for random bytes at global scope) and
// hands it that event and every one after, one at a time. If Go stops (a crash), the next event
// starts it again. See ../docs/cloudflare.md.
import "../build/wasm_exec.js";
import wasm from "../build/sitepush.wasm";

let go = null;
let ready = null;

function sitepush() {
  if (ready === null || go.exited) {
    const current = (go = new Go());
    ready = new Promise((resolve, reject) => {
      globalThis.__sitepushReady = () => resolve(globalThis.sitepush);
      WebAssembly.instantiate(wasm, current.importObject)
        .then((instance) => current.run(instance))
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

export default {
  async fetch(request, env, ctx) {
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
      return (await sitepush()).fetch(request, env, own);
    });
    return Promise.race([answered, waited]);
  },
  async scheduled(event, env, ctx) {
    await inTurn(ctx, async (own) => (await sitepush()).scheduled(event, env, own));
  },
};
