package sitemap

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestReadTimeoutLeavesOutTheCallersTime(t *testing.T) {
	// sitemap.timeout bounds the reader's own time — the network and the parse — not the time
	// the caller takes to record what was read: a fast download whose URLs are slow to store
	// is read once, whole.
	s := newTestSite(t)
	var urls []string
	for i := range 10 * batchSize {
		urls = append(urls, fmt.Sprintf("https://a.example/p/%d", i))
	}
	s.put("/big.xml", &testPage{body: urlsetOf(urls...)})
	o := fast()
	o.Timeout, o.Retries = 500*time.Millisecond, 1
	var warnings []string
	o.Warn = func(w Warning) { warnings = append(warnings, w.String()) }
	n := 0
	res, err := NewReader(o).Read(context.Background(), []string{s.url("/big.xml")}, func(Entry) error {
		if n%batchSize == 0 {
			time.Sleep(150 * time.Millisecond) // 1.5 s in all, three times the timeout
		}
		n++
		return nil
	})
	if err != nil || n != len(urls) || res.Sitemaps[0].Err != nil || s.hitsOf("/big.xml") != 1 {
		t.Errorf("%d URLs, %v, %v after %d downloads (warnings %q); want all, once", n, err, res.Sitemaps[0].Err, s.hitsOf("/big.xml"), warnings)
	}
}

func TestReadRunContextEndsAStalledDownload(t *testing.T) {
	// The run's own context ends a read at once, whatever is left of sitemap.timeout.
	s := newTestSite(t)
	s.put("/stalled.xml", &testPage{body: urlsetOf("https://a.example/1"), delay: time.Second})
	o := fast()
	o.Timeout = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := NewReader(o).Read(ctx, []string{s.url("/stalled.xml")}, func(Entry) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's", err)
	}
}

func TestReadRobotsTimeout(t *testing.T) {
	// robots.txt is bound by sitemap.timeout as a sitemap is: a host that never answers must not
	// hold a read until the run's budget ends.
	s := newTestSite(t)
	s.put("/robots.txt", &testPage{body: []byte("Sitemap: /a.xml\n"), contentType: "text/plain", delay: time.Second})
	s.put("/sitemap.xml", &testPage{body: urlsetOf(s.url("/1"))})
	o := fast()
	o.Timeout, o.Retries = 100*time.Millisecond, 0
	r := read(t, o, s.url("/"))
	if !r.warned("robots.txt: not read (no complete answer within 100ms (sitemap.timeout))") || len(r.urls) != 1 {
		t.Errorf("urls %v, warnings %q; want robots.txt to time out and /sitemap.xml read", r.urls, r.warnings)
	}
}
