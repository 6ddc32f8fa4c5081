package changes

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sitepush/sitepush/internal/sitemap"
)

// corpusDir finds the corpus of published sitemaps (shared/corpus/real beside the project, or
// $SITEPUSH_CORPUS). It is reference data, not part of the repository.
func corpusDir(t *testing.T) string {
	d := os.Getenv("SITEPUSH_CORPUS")
	if d == "" {
		d, _ = filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus", "real"))
	}
	if _, err := os.Stat(filepath.Join(d, "MANIFEST.tsv")); err != nil {
		t.Skipf("no sitemap corpus at %s: set SITEPUSH_CORPUS to its directory to run this test", d)
	}
	return d
}

// urlset is one urlset of the corpus as MANIFEST.tsv describes it.
type urlset struct {
	file           string
	urls, lastmods int
}

// corpusURLSets lists the corpus' urlsets: the well-formed files whose root is <urlset>.
func corpusURLSets(t *testing.T, dir string) []urlset {
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comma, cr.LazyQuotes = '\t', true
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	var out []urlset
	for _, row := range rows[1:] {
		if row[col["kind"]] != "urlset" {
			continue
		}
		urls, err1 := strconv.Atoi(row[col["url_count"]])
		lastmods, err2 := strconv.Atoi(row[col["lastmod_count"]])
		if err1 != nil || err2 != nil {
			t.Fatalf("MANIFEST.tsv: %s: url_count %q, lastmod_count %q", row[col["file"]], row[col["url_count"]], row[col["lastmod_count"]])
		}
		out = append(out, urlset{row[col["file"]], urls, lastmods})
	}
	return out
}

// serveCorpus serves the corpus' files as a site would, so that relative <loc>s resolve. The
// schemeless locs of tailcolor ("localhost:3000/palettes/…"), which no reader can take for
// URLs, are given a scheme: what is measured here is the lastmods, not the locs.
func serveCorpus(t *testing.T, dir string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.Base(r.URL.Path)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write(bytes.ReplaceAll(data, []byte("<loc>localhost:"), []byte("<loc>http://localhost:")))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCorpusVerdicts judges the lastmods of every urlset of the corpus, as read by the
// project's own sitemap reader, and prints the table of verdicts (go test -v). Of its 31
// urlsets (its 32nd file with <url>s is not XML, and is refused), 17 give no lastmod at all,
// and of the 14 that do, 4 tell pages apart: the others stamp most URLs with a build's time
// (one value, or values milliseconds apart), or leave most URLs without one.
func TestCorpusVerdicts(t *testing.T) {
	dir := corpusDir(t)
	srv := serveCorpus(t, dir)
	r := sitemap.NewReader(sitemap.Options{Client: srv.Client(), Repeats: true})
	var trusted, undated, content []string
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-72s %6s %6s  %s\n", "file", "URLs", "dated", "verdict")
	for _, u := range corpusURLSets(t, dir) {
		var l Lastmods
		res, err := r.Read(context.Background(), []string{srv.URL + "/" + u.file}, func(e sitemap.Entry) error {
			l.Add(e.Lastmod)
			return nil
		})
		if err != nil || len(res.Failed()) > 0 {
			t.Fatalf("%s: %v %v", u.file, err, res.Failed())
		}
		v := l.Verdict()
		if v.URLs != u.urls || v.Dated != u.lastmods {
			t.Errorf("%s: %d URLs, %d with a lastmod; MANIFEST.tsv says %d and %d", u.file, v.URLs, v.Dated, u.urls, u.lastmods)
		}
		fmt.Fprintf(&table, "%-72s %6d %6d  %s\n", u.file, v.URLs, v.Dated, v)
		switch {
		case v.Trusted:
			trusted = append(trusted, u.file)
		case v.Dated == 0:
			undated = append(undated, u.file)
		default:
			content = append(content, u.file)
		}
	}
	t.Log(table.String())
	t.Logf("%d urlsets: %d trusted, %d without lastmod, %d with lastmods that do not tell pages apart",
		len(trusted)+len(undated)+len(content), len(trusted), len(undated), len(content))
	wantTrusted := []string{
		"00theway__00theway.github.io__page-sitemap.xml",
		"00theway__00theway.github.io__post-sitemap.xml",
		"00theway__00theway.github.io__tag-sitemap.xml",
		"10beasts__10beasts.github.io__page-sitemap.xml",
	}
	if !slices.Equal(trusted, wantTrusted) || len(undated) != 17 || len(content) != 10 {
		t.Errorf("trusted %q, %d without lastmod, %d judged by content; want %q, 17 and 10", trusted, len(undated), len(content), wantTrusted)
	}
}
