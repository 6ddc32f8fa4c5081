package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestURLs(t *testing.T) {
	var ua string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua = r.UserAgent()
		switch r.URL.Path {
		case "/sitemap.xml":
			fmt.Fprint(w, `<urlset><url><loc>https://a.example/1</loc><lastmod>2024-05-06T07:08:09.123+02:00</lastmod></url>`+
				`<url><loc>https://a.example/"q"</loc></url><url><loc>ftp://skip.me/</loc></url></urlset>`)
		case "/index.xml":
			fmt.Fprintf(w, `<sitemapindex><sitemap><loc>%[1]s/sitemap.xml</loc></sitemap><sitemap><loc>%[1]s/gone.xml</loc></sitemap></sitemapindex>`, "http://"+r.Host)
		case "/dead-index.xml":
			fmt.Fprintf(w, `<sitemapindex><sitemap><loc>%[1]s/gone-1.xml</loc></sitemap><sitemap><loc>%[1]s/gone-2.xml</loc></sitemap></sitemapindex>`, "http://"+r.Host)
		case "/page.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<!doctype html><html><title>x</title></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	code, out, errOut := run(t, "urls", srv.URL+"/sitemap.xml")
	if code != exitOK || out != "https://a.example/1\nhttps://a.example/\"q\"\n" || !strings.Contains(errOut, `warning: `+srv.URL+`/sitemap.xml: skipped "ftp://skip.me/": not an http(s) URL`) {
		t.Errorf("text: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.HasPrefix(ua, "sitepush/") {
		t.Errorf("User-Agent %q does not name sitepush", ua)
	}

	code, out, _ = run(t, "urls", "--format", "tsv", srv.URL+"/sitemap.xml", "--user-agent", "probe/2")
	if code != exitOK || out != "https://a.example/1\t2024-05-06T05:08:09.123Z\nhttps://a.example/\"q\"\t\n" || ua != "probe/2" {
		t.Errorf("tsv: exit %d, stdout %q, UA %q", code, out, ua)
	}

	code, out, errOut = run(t, "urls", srv.URL+"/index.xml", "--format=jsonl")
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("jsonl line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if code != exitOK || len(lines) != 2 || lines[0]["lastmod"] != "2024-05-06T05:08:09.123Z" || lines[1]["lastmod"] != nil ||
		lines[1]["url"] != `https://a.example/"q"` || lines[0]["sitemap"] != srv.URL+"/sitemap.xml" {
		t.Errorf("jsonl: exit %d, %v", code, lines)
	}
	if !strings.Contains(errOut, "warning: could not read "+srv.URL+"/gone.xml: HTTP 404 Not Found") {
		t.Errorf("a dead child must be a warning when the rest was read: %q", errOut)
	}

	code, out, errOut = run(t, "urls", srv.URL+"/page.html")
	if code != exitFailed || out != "" || !strings.Contains(errOut, "error: "+srv.URL+"/page.html: not a sitemap: got an HTML page") ||
		!strings.Contains(errOut, "error: "+srv.URL+"/page.html: no sitemap could be read") {
		t.Errorf("html: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = run(t, "urls", srv.URL+"/dead-index.xml")
	if want := "error: " + srv.URL + "/dead-index.xml: the sitemap index was read, but none of the 2 sitemaps it lists could be read"; code != exitFailed || !strings.Contains(errOut, want) {
		t.Errorf("an index whose sitemaps all fail: exit %d, stderr %q; want %q", code, errOut, want)
	}
}

func TestURLsLocalFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "urls.txt")
	os.WriteFile(f, []byte("https://a.example/1\nhttps://a.example/2\nhttps://a.example/1\n"), 0o644)
	code, out, errOut := run(t, "urls", f)
	if code != exitOK || out != "https://a.example/1\nhttps://a.example/2\n" || errOut != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = run(t, "urls", f+".missing")
	if code != exitFailed || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
}
