package worker

import (
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sitepush/sitepush/internal/enginetest"
)

// host serves a website's files: as enginetest.Files does until built is set, then as a static
// host serves a site's build — each file with an ETag of its bytes and the build's time as
// Last-Modified, and 304 to a conditional GET that names them. Its caller guards files and
// built; it counts its 304s itself, answering requests side by side.
type host struct {
	files enginetest.Files
	built time.Time

	mu          sync.Mutex
	notModified []string // the paths answered 304
}

func (h *host) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, ok := h.files[r.URL.Path]
	if !ok || h.built.IsZero() {
		h.files.ServeHTTP(rw, r)
		return
	}
	sum := fnv.New64a()
	sum.Write([]byte(body))
	rw.Header().Set("ETag", fmt.Sprintf(`"%x"`, sum.Sum64()))
	answer := &statusWriter{ResponseWriter: rw}
	http.ServeContent(answer, r, "", h.built, strings.NewReader(body))
	if answer.code == http.StatusNotModified {
		h.mu.Lock()
		h.notModified = append(h.notModified, r.URL.Path)
		h.mu.Unlock()
	}
}

// pagesNotModified returns how many pages (/s/…) were answered 304 since it was last called.
func (h *host) pagesNotModified() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, p := range h.notModified {
		if strings.HasPrefix(p, "/s/") {
			n++
		}
	}
	h.notModified = nil
	return n
}

// statusWriter notes the status written through it.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

// stampedBuild writes build b of a stamped site of n pages (/s/0 … /s/{n-1}) into h, as a static
// site generator that stamps each URL with its build's time writes it: its sitemap, every URL
// with the build's time as lastmod (one value: changes.detect auto checks the site by content),
// and its pages — page i's text, with its edit when edits has one (edits are kept from build to
// build, as in a site's sources), amid what every build changes: a nonce, hashed asset names, a
// build id in a script and the footer. Every page's bytes differ from one build to the next. h
// is served from origin.
func stampedBuild(h *host, origin string, n, b int, edits map[int]int) {
	h.built = time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(b) * time.Hour)
	var sm strings.Builder
	sm.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range n {
		path := fmt.Sprintf("/s/%d", i)
		fmt.Fprintf(&sm, "<url><loc>%s%s</loc><lastmod>%s</lastmod></url>", origin, path, h.built.Format(time.RFC3339))
		h.files[path] = builtPage(i, b, edits[i])
	}
	sm.WriteString("</urlset>")
	h.files["/sitemap.xml"] = sm.String()
}

// builtPage is page i as build b writes it, its text edited edit times.
func builtPage(i, b, edit int) string {
	noise := fmt.Sprintf("%x", sha256.Sum256(fmt.Appendf(nil, "%d/%d", b, i)))
	asset, nonce, id := noise[:8], noise[8:24], noise[24:40]
	text := fmt.Sprintf("The text of page %d, which its author wrote.", i)
	if edit > 0 {
		text += fmt.Sprintf(" Edited %d times since.", edit)
	}
	return fmt.Sprintf(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page %[1]d</title>
<link rel="stylesheet" href="/_assets/site.%[2]s.css"><script nonce="%[3]s">window.__BUILD__ = "%[4]s"</script></head>
<body><header><nav><a href="/">Home</a> <a href="/s/0">First</a></nav></header>
<main><h1>Page %[1]d</h1><p>%[5]s</p><img src="/_assets/hero.%[2]s.webp" alt="">
<form method="post"><input type="hidden" name="csrf" value="%[3]s"><button>Subscribe</button></form></main>
<footer>Built %[4]s</footer><script type="module" src="/_assets/app.%[2]s.js" nonce="%[3]s"></script></body></html>`,
		i, asset, nonce, id, text)
}
