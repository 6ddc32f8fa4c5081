package runner_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/changes"
	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
	"github.com/sitepush/sitepush/internal/runner"
)

// etags answers the pages of a built site with an ETag of their bytes, and 304 to a GET that
// names it, as a static host does.
type etags struct{ *builtSite }

func (e etags) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := e.builtSite.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	tag := fmt.Sprintf(`"%x"`, sha256.Sum256(body))
	resp.Header.Set("ETag", tag)
	if req.Header.Get("If-None-Match") == tag {
		resp.StatusCode, resp.Status, body = http.StatusNotModified, "304 Not Modified", nil
	}
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return resp, nil
}

// TestNotModifiedIsTheSame: pages that answer 304 to the check's conditional GET are the same,
// and counted not modified; a build that edited one page sends it, its check a 200.
func TestNotModifiedIsTheSame(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			w := newBuilds(t, open, "", 10)
			in := &fakeChannel{name: "indexnow", batch: 100}
			opt := runner.Options{Channels: []channel.Channel{in}}
			runETags := func() *model.Record {
				w.at = w.at.Add(time.Hour)
				r := contentRunner(w.open, w.at, w.b)
				r.Client.Transport = etags{w.b}
				return run(t, r, w.s, opt)
			}
			w.s.publish(w.b.publish(0, w.all, false, nil)...)
			runETags()
			in.take()
			rec := runETags()
			if c := rec.Changes; c == nil || c.Checked != 10 || c.Same != 10 || c.NotModified != 10 || len(in.take()) != 0 {
				t.Fatalf("a run of nothing rebuilt: changes %+v; want 10 checked the same, 10 not modified, nothing sent", c)
			}
			w.s.publish(w.b.publish(1, w.all, false, map[string]int{"/p3": 1})...)
			rec = runETags()
			if c, got := rec.Changes, in.take(); c.Changed != 1 || c.Same != 9 || c.NotModified != 0 || !slices.Equal(got, urls("/p3")) {
				t.Fatalf("a build that edited /p3: changes %+v, sent %v; want /p3 changed and sent, 9 the same, none not modified", c, got)
			}
		})
	}
}

// TestTheRecordSaysHowChangesAreTold: each sitemap's verdict is in the record; a sitemap whose
// lastmods are trusted costs no fetch, and a run that checks none has no changes; detect: lastmod
// checks nothing, detect: content checks a trusted sitemap too. The second run is of a build
// that moved the stamp and the lastmod of /p10 (on dated.xml), and edited nothing.
func TestTheRecordSaysHowChangesAreTold(t *testing.T) {
	stamp := "content: 10 URLs share the lastmod 2026-11-01T00:00:00Z, a build's stamp"
	for _, tc := range []struct {
		detect, sitemaps string
		verdicts         []string // by sitemap, in order; none for a run that checks nothing
		fetched          [2]int   // pages fetched by each run
		sent             []string // by the second run
	}{
		{"auto", "stamped.xml, dated.xml", []string{stamp, "lastmod: trusted, 10 distinct values"}, [2]int{10, 10}, urls("/p10")},
		{"auto", "dated.xml", nil, [2]int{0, 0}, urls("/p10")},
		{"lastmod", "stamped.xml", nil, [2]int{0, 0}, urls(paths(10)...)},
		{"content", "dated.xml", []string{"content: changes.detect is content"}, [2]int{10, 10}, nil},
	} {
		for name, open := range states(t) { // a state of its own: no page of another case in line
			b, dir, in := newBuiltSite(), t.TempDir(), &fakeChannel{name: "indexnow", batch: 100}
			s := siteIn(t, dir, tc.sitemaps, "    changes: {detect: "+tc.detect+"}\n")
			at := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
			for n := range 2 {
				stamped, dated := b.publish(n, paths(10), true, nil), b.publish(n, paths(20)[10:], false, nil)
				for i := range dated {
					dated[i] += time.Date(2026, 10, 1+i+20*n*max(0, 1-i), 0, 0, 0, 0, time.UTC).Format(" 2006-01-02")
				}
				os.WriteFile(filepath.Join(dir, "stamped.xml"), []byte(urlset(stamped...)), 0o644)
				os.WriteFile(filepath.Join(dir, "dated.xml"), []byte(urlset(dated...)), 0o644)
				at = at.Add(time.Hour)
				rec := run(t, contentRunner(open, at, b), s, runner.Options{Channels: []channel.Channel{in}})
				fetched, sent := b.fetched(), in.take()
				if n == 1 && !slices.Equal(sent, tc.sent) || fetched["/p10"] != 0 && tc.detect != "content" {
					t.Errorf("%s: detect %s on %s, the second run: sent %v, fetched %v; want %v sent, /p10 not fetched", name, tc.detect, tc.sitemaps, sent, fetched, tc.sent)
				}
				var verdicts []string
				if rec.Changes != nil {
					for _, f := range strings.Split(tc.sitemaps, ", ") {
						verdicts = append(verdicts, rec.Changes.Sitemaps[filepath.Join(dir, f)])
					}
				}
				want := slices.Clone(tc.verdicts)
				if len(want) > 0 && n == 1 {
					want[0] = strings.Replace(want[0], "T00:", "T01:", 1) // the build's stamp
				}
				if !prefixes(verdicts, want) || len(fetched) != tc.fetched[n] || (tc.verdicts == nil) != (rec.Changes == nil) {
					t.Errorf("%s: detect %s on %s, run %d: changes %+v, %d pages fetched; want verdicts %q, %d fetched",
						name, tc.detect, tc.sitemaps, n, rec.Changes, len(fetched), want, tc.fetched[n])
				}
			}
		}
	}
}

// TestADryRunChecksNothing: a dry run fetches no page and checks nothing; the run after checks
// the build as if the dry run had not been.
func TestADryRunChecksNothing(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			w := newBuilds(t, open, "", 10)
			in := &fakeChannel{name: "indexnow", batch: 100}
			opt := runner.Options{Channels: []channel.Channel{in}}
			w.publish(0, nil)
			w.run(opt)
			in.take()
			w.b.fetched()
			w.publish(1, map[string]int{"/p1": 1})
			dry := opt
			dry.DryRun = true
			rec := w.run(dry)
			if fetched := w.b.fetched(); len(fetched) != 0 || rec.Changes != nil && rec.Changes.Checked+rec.Changes.Left != 0 {
				t.Fatalf("a dry run fetched %v, changes %+v; want nothing fetched, nothing checked", fetched, rec.Changes)
			}
			rec = w.run(opt)
			if got := in.take(); !slices.Equal(got, urls("/p1")) || rec.Changes.Checked != 10 {
				t.Errorf("the run after the dry run sent %v, changes %+v; want /p1, 10 checked", got, rec.Changes)
			}
		})
	}
}

// TestChangesDir: with changes.dir the pages are read from the build on disk, never fetched: a
// build that changed 2 files sends those 2; a URL with no file is decided by its lastmod, with
// a warning naming the paths tried.
func TestChangesDir(t *testing.T) {
	for name, open := range states(t) {
		t.Run(name, func(t *testing.T) {
			build, b, s := t.TempDir(), newBuiltSite(), newSite(t, "")
			in := &fakeChannel{name: "indexnow", batch: 100}
			opt := runner.Options{Channels: []channel.Channel{in}}
			write := func(n int, edits map[string]int) {
				var entries []string
				for i := range 10 {
					p := fmt.Sprintf("/p/%d/", i)
					os.MkdirAll(filepath.Join(build, "p", fmt.Sprint(i)), 0o755)
					page := fmt.Sprintf("<html><head><title>%s</title><script src=/a.%d.js></script></head><body><main>edit %d</main></body></html>", p, n, edits[p])
					os.WriteFile(filepath.Join(build, "p", fmt.Sprint(i), "index.html"), []byte(page), 0o644)
					entries = append(entries, p)
				}
				entries = append(entries, "/gone/")
				for i := range entries {
					entries[i] += time.Date(2026, 11, 1, n, 0, 0, 0, time.UTC).Format(" 2006-01-02T15:04:05Z")
				}
				s.publish(entries...)
			}
			at := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
			var warnings []string
			runDir := func() *model.Record {
				at = at.Add(time.Hour)
				r := runner.New(open(at))
				r.Now, r.Client = func() time.Time { return at }, &http.Client{Transport: b}
				r.Pages = func(*config.Site, []channel.Channel) channel.PageReader { return changes.NewDirReader(build) }
				r.Warn = func(_, msg string) { warnings = append(warnings, msg) }
				return run(t, r, s, opt)
			}
			write(0, nil)
			rec := runDir()
			if got := in.take(); len(got) != 11 || rec.Channels["indexnow"].Due != 11 || len(warnings) != 1 {
				t.Fatalf("the first run sent %d, %+v, warned %q; want the 11 new due once each, one warning", len(got), rec.Channels["indexnow"], warnings)
			}
			edits := map[string]int{"/p/2/": 1, "/p/7/": 1}
			write(1, edits)
			warnings = nil
			rec = runDir()
			want := urls("/gone/", "/p/2/", "/p/7/")
			if got := in.take(); !slices.Equal(got, want) || rec.Changes.Changed != 2 || rec.Changes.Same != 8 {
				t.Errorf("a build that edited 2 files: sent %v, changes %+v; want the 2 edited and /gone/ (its lastmod moved), 2 changed and 8 the same",
					got, rec.Changes)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], filepath.Join(build, "gone", "index.html")) {
				t.Errorf("warnings %q; want one naming the files tried for /gone/", warnings)
			}
			if got := b.fetched(); len(got) != 0 {
				t.Errorf("fetched %v; want no page fetched", got)
			}
			if st := rec.Channels["indexnow"]; st.Due != 3 {
				t.Errorf("IndexNow's stats %+v; want 3 due", st)
			}
		})
	}
}

// prefixes reports whether each verdict begins with the one wanted: a verdict may go on to say
// how the lastmods moved since the read before.
func prefixes(verdicts, want []string) bool {
	if len(verdicts) != len(want) {
		return false
	}
	for i, v := range verdicts {
		if !strings.HasPrefix(v, want[i]) {
			return false
		}
	}
	return true
}
