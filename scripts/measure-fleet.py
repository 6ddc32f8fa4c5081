#!/usr/bin/env python3
"""Measures what `sitepush serve` costs with many sites — the figures of docs/deployment.md's
"How many sites" section. Everything runs on loopback: a website that serves each site's sitemap
(10–50 URLs) and an IndexNow endpoint that accepts every POST.

    python3 scripts/measure-fleet.py --sites 10000
    python3 scripts/measure-fleet.py --sites 10000 --state postgres://postgres@127.0.0.1:5432/postgres
    python3 scripts/measure-fleet.py --sites 10000 --api     # the sites created through the API

With --state postgres://…/DB, a database sitepush_fleet_<random> is created beside DB and dropped
at the end (psql must be on the PATH). It prints one line a figure:

    start-up CPU      serve's CPU from exec to the file's last site served, and --settle seconds later
    idle CPU/min      serve's CPU over --idle seconds with nothing due, per minute
    create CPU        serve's CPU per POST /api/sites over the first and the last --creates
    GET /             the dashboard's overview (signed in)
    /api/sites, /status    the answer without limit, and a page of 50
    /metrics          after --runs sites were triggered and finished
    peak RSS          VmHWM of serve at the end
"""
import argparse, http.server, json, os, shutil, socketserver, subprocess, sys, tempfile, threading, time
import urllib.error, urllib.request, uuid

KEY = "f1e2e3t4k5e6y7a8b9c0"
TOKEN = "measure-fleet-token-0123456789"


class World(http.server.BaseHTTPRequestHandler):
    """The sites' sitemaps at /s/<i>/sitemap.xml, the IndexNow key, and an IndexNow endpoint."""

    def log_message(self, *a):
        pass

    def do_GET(self):
        parts = self.path.split("/")
        if self.path == f"/{KEY}.txt":
            return self.answer(200, KEY.encode(), "text/plain")
        if len(parts) == 4 and parts[1] == "s" and parts[3] == "sitemap.xml" and parts[2].isdigit():
            i, host = int(parts[2]), self.headers.get("Host")
            urls = "".join(f"<url><loc>http://{host}/s/{i}/p{j}</loc><lastmod>2026-01-{1 + j % 28:02d}</lastmod></url>"
                           for j in range(10 + i % 41))
            body = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
            return self.answer(200, body.encode(), "application/xml")
        self.answer(404, b"not found", "text/plain")

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.answer(200, b"", "text/plain")

    def answer(self, code, body, kind):
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def call(base, method, path, body=None, token=TOKEN):
    req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=300) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def cpu(pid):
    """utime + stime of the process, seconds."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sites", type=int, default=1000, help="sites in the configuration file")
    ap.add_argument("--api", action="store_true", help="the sites created through the API instead (by a serve before)")
    ap.add_argument("--state", default="", help="postgres://…/DB for PostgreSQL (default: SQLite in a temporary directory)")
    ap.add_argument("--creates", type=int, default=100, help="sites created through the API, measured first and last")
    ap.add_argument("--runs", type=int, default=200, help="sites triggered before /metrics is read")
    ap.add_argument("--settle", type=int, default=10, help="seconds after start-up before the idle CPU is measured")
    ap.add_argument("--idle", type=int, default=60, help="seconds of idle CPU measured")
    ap.add_argument("--binary", default="", help="a sitepush binary (default: go build ./cmd/sitepush)")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="measure-fleet-")
    try:
        binary = a.binary or os.path.join(tmp, "sitepush")
        if not a.binary:
            subprocess.run(["go", "build", "-o", binary, "./cmd/sitepush"], check=True)
        world = Server(("127.0.0.1", 0), World)
        threading.Thread(target=world.serve_forever, daemon=True).start()
        site = f"http://127.0.0.1:{world.server_address[1]}"
        state, drop = f"sqlite:{tmp}/state.db", None
        if a.state.startswith("postgres"):
            db = "sitepush_fleet_" + uuid.uuid4().hex[:8]
            subprocess.run(["psql", a.state, "-qc", f"CREATE DATABASE {db}"], check=True)
            state, drop = a.state.rsplit("/", 1)[0] + "/" + db, (a.state, db)
        try:
            measure(a, binary, tmp, site, state)
        finally:
            if drop:
                subprocess.run(["psql", drop[0], "-qc", f"DROP DATABASE IF EXISTS {drop[1]} WITH (FORCE)"])
    finally:
        shutil.rmtree(tmp, True)


def wait_for(p, base, path, tmp):
    """Waits until serve answers path with 200; exits with its log's end when serve does."""
    while True:
        if p.poll() is not None:
            sys.exit("serve exited: " + open(os.path.join(tmp, "serve.log")).read()[-400:])
        try:
            if call(base, "GET", path)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.02)


def create_all(p, base, site, n, tmp):
    """POSTs sites site-00000… to serve from 4 threads, once it answers."""
    wait_for(p, base, "/healthz", tmp)
    failed = []

    def work(k):
        for i in range(k, n, 4):
            code, raw = call(base, "POST", "/api/sites", {"id": f"site-{i:05d}", "sitemaps": [f"{site}/s/{i}/sitemap.xml"]})
            if code not in (200, 201):
                failed.append(f"POST /api/sites: {code} {raw[:200]!r}")
                return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        sys.exit(failed[0])


def measure(a, binary, tmp, site, state):
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    base = f"http://127.0.0.1:{port}"
    lines = [f"state: {state}", f"listen: 127.0.0.1:{port}", f"adminToken: {TOKEN}", "defaults:",
             '  schedule: "0 0 1 1 *"',
             f"  indexnow: {{enabled: true, key: {KEY}, endpoints: [{site}/indexnow], interval: 1ms}}", "sites:"]
    if a.api:
        lines[-1] = "sites: []"
    else:
        lines += [f"  - {{id: site-{i:05d}, sitemaps: [{site}/s/{i}/sitemap.xml]}}" for i in range(a.sites)]
    cfg = os.path.join(tmp, "sitepush.yaml")
    open(cfg, "w").write("\n".join(lines) + "\n")
    log = open(os.path.join(tmp, "serve.log"), "wb")
    if a.api:  # the sites created through the API by a serve of their own, then measured from a start
        p = subprocess.Popen([binary, "serve", "--config", cfg], stdout=log, stderr=subprocess.STDOUT)
        create_all(p, base, site, a.sites, tmp)
        p.terminate()
        p.wait(30)
    p = subprocess.Popen([binary, "serve", "--config", cfg], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(p, base, f"/api/sites/site-{a.sites - 1:05d}", tmp)
        print(f"sites {'through the API' if a.api else 'in the file'} {a.sites:,}  "
              f"({'PostgreSQL' if state.startswith('postgres') else 'SQLite'})")
        served = cpu(p.pid)
        time.sleep(a.settle)
        print(f"start-up CPU        {served:.2f} s to the last site served, {cpu(p.pid):.2f} s {a.settle} s later "
              f"(the scheduler's first read)")
        c0 = cpu(p.pid)
        time.sleep(a.idle)
        print(f"idle CPU/min        {(cpu(p.pid) - c0) * 60 / a.idle:.2f} s")

        def creates(first):
            c0 = cpu(p.pid)
            for i in range(first, first + a.creates):
                code, raw = call(base, "POST", "/api/sites", {"id": f"api-{i:05d}", "sitemaps": [f"{site}/s/{i}/sitemap.xml"]})
                if code not in (200, 201):
                    sys.exit(f"POST /api/sites: {code} {raw[:200]!r}")
            return (cpu(p.pid) - c0) / a.creates * 1000

        first = creates(0)
        print(f"create CPU          {first:.1f} ms each over the first {a.creates}, "
              f"{creates(a.creates):.1f} ms over the next {a.creates}")
        for path in ("/", "/api/sites", "/api/sites?limit=50", "/status", "/status?limit=50"):
            t0 = time.time()
            code, raw = call(base, "GET", path)
            print(f"GET {path:<19} {len(raw) / 1024:,.0f} KB, HTTP {code}, {(time.time() - t0) * 1000:.0f} ms")
        ran = 0
        for i in range(0, min(a.runs, a.sites), 20):
            for j in range(i, min(i + 20, a.runs, a.sites)):
                call(base, "POST", f"/trigger?site=site-{j:05d}")
            ran = min(i + 20, a.runs, a.sites)
            while any(p["status"] == "running" for p in json.loads(call(base, "GET", "/status?limit=500")[1])["sites"]):
                time.sleep(0.1)
        t0 = time.time()
        code, raw = call(base, "GET", "/metrics", token=None)
        print(f"GET /metrics        {len(raw) / 1024:,.0f} KB after {ran:,} runs, {(time.time() - t0) * 1000:.0f} ms")
        print(f"peak RSS            {peak_rss_mb(p.pid):.0f} MB")
    finally:
        p.terminate()
        p.wait(30)


if __name__ == "__main__":
    main()
