package config

import (
	"fmt"
	"strings"
	"testing"
)

// fleetDoc is a file of n sites fleet-0000…, each on one line (line i+3), with edit applied to
// the lines of some of them.
func fleetDoc(n int, edit map[int]string) string {
	var b strings.Builder
	b.WriteString("defaults:\n  feed: {enabled: true}\nsites:\n")
	for i := range n {
		line, ok := edit[i]
		if !ok {
			line = fmt.Sprintf("{id: fleet-%04d, sitemaps: [https://s%d.example/s.xml]}", i, i)
		}
		b.WriteString("  - " + line + "\n")
	}
	return b.String()
}

// TestTakenInABigFile checks the messages of ids and feed files taken, among thousands of sites:
// each names the first site that has the id or the file.
func TestTakenInABigFile(t *testing.T) {
	doc := fleetDoc(3000, map[int]string{
		100:  "{id: a, sitemaps: [https://a.example/s.xml], feed: {out: feeds/a.xml}}",
		1000: "{id: A, sitemaps: [https://a.example/s.xml]}",
		2000: "{id: a, sitemaps: [https://a.example/s.xml]}",
		2500: "{id: b, sitemaps: [https://b.example/s.xml], feed: {out: ./feeds/x/../a.xml}}",
		2600: "{id: c, sitemaps: [https://c.example/s.xml], feed: {out: feeds/a.xml}}",
		2700: "{id: d, sitemaps: [https://d.example/s.xml], feed: {enabled: false, out: feeds/a.xml}}",
		2999: "{id: Fleet-0005, sitemaps: [https://f.example/s.xml]}",
	})
	_, err := parse(doc, nil)
	want := strings.Join([]string{
		`site "A": id "A" is already used, as "a", by the site at line 104: ids that differ only by case are the same (they appear in URLs and file names); give each site its own id`,
		`site "a": id "a" is already used by the site at line 104; give each site its own id`,
		`site "b": feed.out "/etc/sitepush/feeds/a.xml" is also written by site "a" (line 104); give each site its own file`,
		`site "c": feed.out "/etc/sitepush/feeds/a.xml" is also written by site "a" (line 104); give each site its own file`,
		`site "Fleet-0005": id "Fleet-0005" is already used, as "fleet-0005", by the site at line 9: ids that differ only by case are the same (they appear in URLs and file names); give each site its own id`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
}

// BenchmarkParseFleet measures reading a file of 500 and of 5,000 sites: its validation is
// linear, so the second costs about ten times the first.
func BenchmarkParseFleet(b *testing.B) {
	for _, n := range []int{500, 5000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			doc := []byte(fleetDoc(n, map[int]string{0: "{id: fleet-0000, sitemaps: [https://s.example/s.xml], feed: {out: feed.xml}}"}))
			for b.Loop() {
				if _, err := Parse(doc, "/etc/sitepush", env(nil)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
