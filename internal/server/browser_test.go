//go:build linux

package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/sitepush/sitepush/internal/enginetest"
)

// TestBrowser drives the dashboard in Debian's headless Chromium over the DevTools protocol, as a
// person would: sign in, the overview with real runs behind it and 120 more sites in pages, its
// search, a site, a run, a URL's story, "Run now" and the run's page, a form without its csrf
// token refused, and the stories of pages checked by content. It saves screenshots
// of each page at 1400 and 420 px wide in the test's temporary folder, or in
// SITEPUSH_SCREENSHOTS when set. Without chromium it is skipped, unless SITEPUSH_TEST_BROWSER=1.
func TestBrowser(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("SITEPUSH_TEST_BROWSER") == "1" {
			t.Fatal("SITEPUSH_TEST_BROWSER=1 but chromium is not installed: apt-get install chromium")
		}
		t.Skip("chromium is not installed (apt-get install chromium); SITEPUSH_TEST_BROWSER=1 makes this a failure")
	}
	shots := os.Getenv("SITEPUSH_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	w := newWorld(t)
	w.engine.Fail(enginetest.Fault{Status: 429, RetryAfter: "1"})
	w.run("all")
	w.files["/sitemap.xml"] = strings.Replace(w.files["/sitemap.xml"], "</urlset>",
		"<url><loc>"+w.site.URL+"/blog/late-1</loc></url><url><loc>"+w.site.URL+"/blog/late-2</loc></url></urlset>", 1)
	w.engine.Fail(enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503}, enginetest.Fault{Status: 503})
	w.run("indexnow")

	w.addSites(120)

	b := startChromium(t, bin)
	shoot := func(name string) {
		for _, width := range []int{1400, 420} {
			file := filepath.Join(shots, fmt.Sprintf("%s-%d.png", name, width))
			b.screenshot(file, width)
		}
	}
	b.open(w.http.URL + "/")
	b.waitFor(`document.querySelector('input[name=token]') !== null`)
	shoot("login")
	b.act(`document.querySelector('input[name=token]').value = ` + jsString(token) + `; document.querySelector('form[action="/login"]').submit()`)
	b.waitFor(`location.pathname === "/" && document.title === "sitepush — overview"`)
	b.expectText("filesite", "Bing quota", "accepted")
	// An error naming a long URL wraps inside its card (the layout check of each screenshot).
	b.act(`document.querySelector(".error").append(" https://example.com/" + "x".repeat(400))`)
	shoot("overview")

	// 121 sites: 50 a page, the count of each health across all sites, a search by id or host.
	b.expectText("121 sites", "Showing 1–50 of 121 sites.", "page 1 of 3")
	if n := b.eval(`document.querySelectorAll("article.card").length`); n != "50" {
		t.Errorf("the overview shows %s sites, want 50", n)
	}
	b.act(`document.querySelector('a[rel=next]').click()`)
	b.waitFor(`location.search === "?page=2"`)
	b.expectText("Showing 51–100 of 121 sites.", "page 2 of 3", "fleet-0050")
	shoot("overview-page-2")
	b.act(`document.querySelector('#q').value = "FLEET-0077"; document.querySelector('form[role=search]').submit()`)
	b.waitFor(`location.search === "?q=FLEET-0077"`)
	if n := b.eval(`[...document.querySelectorAll("article.card h2 a")].map(a => a.textContent).join()`); n != "fleet-0077" {
		t.Errorf("the search for FLEET-0077 shows %q, want fleet-0077 alone", n)
	}
	shoot("overview-search")
	b.act(`document.querySelector('nav.counts a[href="/?health=failing"]').click()`)
	b.waitFor(`location.search === "?health=failing"`)
	b.expectText("Showing 1–1 of 1 site (health: failing).")

	b.act(`document.querySelector('a[href="/sites/filesite"]').click()`)
	b.waitFor(`location.pathname === "/sites/filesite"`)
	b.expectText("Runs", "Top failure causes", "HTTP 503", "Run now", "From sent to seen", "Crawled by Bing")
	if n := b.eval(`document.querySelectorAll("svg.chart").length`); n != "3" {
		t.Errorf("the site page shows %s charts, want one a channel", n)
	}
	shoot("site")
	b.fitsAPhone()

	b.act(`document.querySelector('a[href^="/runs/"]').click()`)
	b.waitFor(`location.pathname.startsWith("/runs/")`)
	b.expectText("late-1", "503", "URLs of this run", "✖ failed")
	// A long URL the run names, and a long word in an engine's answer, wrap inside the page.
	b.act(`document.querySelector("section.runurls li.url a").append("/" + "x".repeat(300))`)
	b.act(`document.querySelector("section.runurls p.detail").append(" https://example.com/" + "z".repeat(300))`)
	shoot("run")
	b.fitsAPhone()

	b.open(w.http.URL + "/sites/filesite")
	b.waitFor(`location.pathname === "/sites/filesite"`)
	b.act(`document.querySelector('#q').value = ` + jsString(w.site.URL+"/blog/late-1") + `; document.querySelector('form[role=search]').submit()`)
	b.waitFor(`location.pathname === "/sites/filesite/urls"`)
	b.expectText("late-1", "due: failed", "First seen", "its sitemap's lastmods are trusted: not checked")
	shoot("url-story")
	b.fitsAPhone()
	b.open(w.http.URL + "/sites/filesite/urls?q=" + url.QueryEscape(w.site.URL+"/blog/"))
	b.waitFor(`location.pathname === "/sites/filesite/urls"`)
	b.expectText("late-2", "post-24", "due now?")
	shoot("url-list")
	b.fitsAPhone()

	b.open(w.http.URL + "/sites/filesite")
	b.waitFor(`location.pathname === "/sites/filesite"`)
	before := b.eval(`document.querySelectorAll('a[href^="/runs/"]').length`)
	b.act(`document.querySelector('form[action="/sites/filesite/run"] button').click()`)
	b.waitFor(`location.pathname.startsWith("/runs/")`)
	run, started := b.eval(`location.pathname`), b.eval(`location.pathname + location.search`)
	w.waitFinished("filesite")
	// The link the form sent the browser to, loaded again once the run ended, no longer says it started.
	b.open(w.http.URL + started)
	b.waitFor(`!document.body.innerText.includes("This run is going")`)
	if b.eval(`document.body.innerText.includes("The run started")`) == "true" {
		t.Errorf("%s still says the run started once it ended", started)
	}
	shoot("run-now")
	b.open(w.http.URL + "/sites/filesite")
	b.waitFor(`location.pathname === "/sites/filesite"`)
	if n := b.eval(`document.querySelector('a[href="` + run + `"]') !== null`); n != "true" {
		t.Errorf("the site page does not list the run started with Run now (%s); it had %s run links before", run, before)
	}

	// A form without the session's token, as a page of another site would make: refused.
	b.act(`const f = document.querySelector('form[action="/sites/filesite/run"]'); f.querySelector('input[name=csrf]').remove(); f.submit()`)
	b.waitFor(`document.title === "Refused"`)
	b.expectText("did not carry this session")
	shoot("refused")

	// The stories of pages checked by content, each with its line: the URL page of their prefix.
	checkedPages(t, w, time.Now().Add(-3*time.Hour), time.Now().Add(-2*time.Hour))
	b.open(w.http.URL + "/sites/filesite/urls?q=" + url.QueryEscape(w.site.URL+"/content/"))
	b.waitFor(`location.pathname === "/sites/filesite/urls"`)
	b.expectText("not checked since (a suspect: checked first next run)", "content the same as sent to indexnow on",
		"content changed since indexnow was sent it: due", "new to the checks, not checked yet")
	shoot("url-story-content")
	b.fitsAPhone()
	t.Logf("screenshots in %s", shots)
}

// run starts a run of the world's site on channel and waits for it to end.
func (w *world) run(channel string) {
	w.t.Helper()
	e, _ := w.api.sites.Get("filesite")
	if _, err := w.runs.Trigger(e.Site, channel); err != nil {
		w.t.Fatal(err)
	}
	w.waitFinished("filesite")
}

// chromium is a page of a headless Chromium, driven over the DevTools protocol.
type chromium struct {
	t    *testing.T
	ws   *websocket.Conn
	next int
}

// startChromium starts a headless Chromium with a blank page, ended with the test.
func startChromium(t *testing.T, bin string) *chromium {
	dir, err := os.MkdirTemp("", "sitepush-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--hide-scrollbars", "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir="+dir, "about:blank")
	// Its own process group, so that its helper processes end with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		os.RemoveAll(dir)
	})
	var port string
	for deadline := time.Now().Add(20 * time.Second); port == ""; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("chromium did not open its DevTools port within 20 s")
		}
		if b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			port, _, _ = strings.Cut(string(b), "\n")
		}
	}
	var pages []struct{ Type, WebSocketDebuggerURL string }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			json.Unmarshal(body, &pages)
		}
		if len(pages) > 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, p := range pages {
		if p.Type == "page" {
			ws, err := websocket.Dial(p.WebSocketDebuggerURL, "", "http://127.0.0.1/")
			if err != nil {
				t.Fatal(err)
			}
			ws.MaxPayloadBytes = 64 << 20
			t.Cleanup(func() { ws.Close() })
			return &chromium{t: t, ws: ws}
		}
	}
	t.Fatal("chromium has no page to drive")
	return nil
}

// call sends a DevTools command and returns its result, skipping the events in between.
func (c *chromium) call(method string, params map[string]any) json.RawMessage {
	c.t.Helper()
	out, err := c.try(method, params)
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// try sends a DevTools command and returns its result, or the error DevTools answered.
func (c *chromium) try(method string, params map[string]any) (json.RawMessage, error) {
	c.next++
	if err := websocket.JSON.Send(c.ws, map[string]any{"id": c.next, "method": method, "params": params}); err != nil {
		return nil, err
	}
	c.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var msg struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := websocket.JSON.Receive(c.ws, &msg); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if msg.ID != c.next {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, msg.Error.Message)
		}
		return msg.Result, nil
	}
}

// open loads a URL in the page.
func (c *chromium) open(u string) {
	c.t.Helper()
	c.call("Page.navigate", map[string]any{"url": u})
}

// eval evaluates a script in the page and returns its value as text.
func (c *chromium) eval(script string) string {
	c.t.Helper()
	var out struct {
		Result struct {
			Value any
		}
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	json.Unmarshal(c.call("Runtime.evaluate", map[string]any{"expression": script, "returnByValue": true}), &out)
	if e := out.ExceptionDetails; e != nil {
		c.t.Fatalf("%s: %s %s", script, e.Text, e.Exception.Description)
	}
	if out.Result.Value == nil {
		return ""
	}
	return fmt.Sprint(out.Result.Value)
}

// act runs a script that leaves the page (a click, a form sent) once this call has returned.
func (c *chromium) act(script string) {
	c.t.Helper()
	c.eval("setTimeout(() => { " + script + " }, 0); true")
}

// waitFor waits until a condition holds in a loaded page. A page that navigates while it is asked
// (a form sent by act) is asked again.
func (c *chromium) waitFor(cond string) {
	c.t.Helper()
	var last error
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var out struct{ Result struct{ Value any } }
		raw, err := c.try("Runtime.evaluate", map[string]any{"expression": `document.readyState === "complete" && (` + cond + `)`, "returnByValue": true})
		if last = err; err != nil {
			continue
		}
		if json.Unmarshal(raw, &out); out.Result.Value == true {
			return
		}
	}
	c.t.Fatalf("the page %s did not come to %s within 15 s (%v)", c.eval("location.href"), cond, last)
}

// expectText fails the test when the page does not show each text.
func (c *chromium) expectText(texts ...string) {
	c.t.Helper()
	body := c.eval(`document.body.innerText`)
	for _, s := range texts {
		if !strings.Contains(body, s) {
			c.t.Errorf("%s does not show %q", c.eval("location.pathname"), s)
		}
	}
}

// screenshot saves the whole page, laid out width pixels wide, as a PNG.
func (c *chromium) screenshot(file string, width int) {
	c.t.Helper()
	c.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
	// Nothing is wider than the page — a wide table scrolls in its own box — and nothing breaks
	// out of its card.
	if wide := c.eval(`(() => {
		const out = [];
		if (document.documentElement.scrollWidth > innerWidth) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
		for (const card of document.querySelectorAll(".card, .error, .flash, dl.facts"))
			if (card.scrollWidth > card.clientWidth + 1) out.push((card.className || card.tagName) + " overflows by " + (card.scrollWidth - card.clientWidth) + " px");
		return out.join("; ");
	})()`); wide != "" {
		c.t.Errorf("%s at %d px: %s", filepath.Base(file), width, wide)
	}
	height := c.eval(`Math.min(8000, document.documentElement.scrollHeight)`)
	var h int
	fmt.Sscan(height, &h)
	var out struct{ Data string }
	json.Unmarshal(c.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": max(h, 900), "scale": 1}}), &out)
	png, err := base64.StdEncoding.DecodeString(out.Data)
	if err != nil || len(png) == 0 {
		c.t.Fatalf("the screenshot %s: %v", file, err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// fitsAPhone fails the test when the page, laid out 420 px wide, is wider than the screen, has a
// table wider than its box — columns out of sight to the right, such as a URL's "due now?" — or
// draws a chart's label smaller than 10 px.
func (c *chromium) fitsAPhone() {
	c.t.Helper()
	c.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 420, "height": 900, "deviceScaleFactor": 1, "mobile": true})
	if problems := c.eval(`(() => {
		const out = [];
		if (document.documentElement.scrollWidth > innerWidth) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
		const under = el => {
			for (let e = el.previousElementSibling; e; e = e.previousElementSibling)
				if (/^H[23]$/.test(e.tagName)) return e.textContent.trim().slice(0, 30);
			return el.parentElement ? under(el.parentElement) : "?";
		};
		for (const box of document.querySelectorAll(".scroll"))
			if (box.scrollWidth > box.clientWidth + 1) out.push("the table under " + JSON.stringify(under(box)) + " is " + box.scrollWidth + " px wide in a box of " + box.clientWidth);
		for (const svg of document.querySelectorAll("svg.chart")) {
			const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
			const px = Math.min(...[...svg.querySelectorAll("text")].map(t => parseFloat(getComputedStyle(t).fontSize) * scale));
			if (px < 10) out.push("a chart's labels are " + px.toFixed(1) + " px high");
		}
		return out.join("; ");
	})()`); problems != "" {
		c.t.Errorf("%s at 420 px: %s", c.eval("location.pathname + location.search"), problems)
	}
}

// jsString quotes s for a script.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
