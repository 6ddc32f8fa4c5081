package sitemap

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSitemap writes a sitemap of n URLs shaped like a shop's: paths of several words, a
// lastmod on each (half with a time and an offset), changefreq and priority, a query string on
// one URL in seven, and an hreflang link and an image on one in ten. 50,000 of them make
// about 10.6 MB, as in the acceptance check.
func benchSitemap(b *testing.B, n int, gzipped bool) (string, int64) {
	b.Helper()
	rnd := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("alpha beta gamma delta news sport tech cooking travel review guide best top how why 2026 deals")
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">`)
	for i := range n {
		var path []string
		for range 1 + rnd.IntN(3) {
			var seg []string
			for range 2 + rnd.IntN(4) {
				seg = append(seg, words[rnd.IntN(len(words))])
			}
			path = append(path, strings.Join(seg, "-"))
		}
		p := strings.Join(path, "/")
		loc := fmt.Sprintf("https://www.example-shop.com/%s/%d", p, i)
		if i%7 == 0 {
			loc += fmt.Sprintf("?ref=feed&amp;page=%d", i)
		}
		lastmod := fmt.Sprintf("2026-%02d-%02d", 1+i%12, 1+i%28)
		if i%2 == 1 {
			lastmod += fmt.Sprintf("T%02d:%02d:00+02:00", i%24, i%60)
		}
		ext := ""
		if i%10 == 0 {
			ext = fmt.Sprintf(`<xhtml:link rel="alternate" hreflang="de" href="https://www.example-shop.com/de/%s/%d"/><image:image><image:loc>https://cdn.example-shop.com/img/%d.jpg</image:loc></image:image>`, p, i, i)
		}
		fmt.Fprintf(&buf, "\n<url><loc>%s</loc><lastmod>%s</lastmod><changefreq>weekly</changefreq><priority>0.%d</priority>%s</url>", loc, lastmod, i%10, ext)
	}
	buf.WriteString("\n</urlset>\n")
	size := int64(buf.Len())
	data := buf.Bytes()
	name := "bench.xml"
	if gzipped {
		data, name = gz(b, data), "bench.xml.gz"
	}
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, size
}

func benchRead(b *testing.B, n int, gzipped bool) {
	path, size := benchSitemap(b, n, gzipped)
	r := NewReader(Defaults())
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		got := 0
		if _, err := r.Read(context.Background(), []string{path}, func(Entry) error { got++; return nil }); err != nil || got != n {
			b.Fatalf("%d URLs, %v", got, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/url")
}

// BenchmarkRead is the whole read of one local sitemap: decompression, parsing, URL checks,
// dates and the duplicate check of every URL.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("%d", n), func(b *testing.B) { benchRead(b, n, false) })
		b.Run(fmt.Sprintf("%d.gz", n), func(b *testing.B) { benchRead(b, n, true) })
	}
}

// BenchmarkEncodingXML is the yardstick: the encoding/xml token loop a careful Go programmer
// writes first (the acceptance check's perfbase), on the same 50,000-URL sitemap.
func BenchmarkEncodingXML(b *testing.B) {
	path, size := benchSitemap(b, 50_000, false)
	data, _ := os.ReadFile(path)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		d := xml.NewDecoder(bytes.NewReader(data))
		depth, field, loc, lastmod, n := 0, "", "", "", 0
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			switch t := tok.(type) {
			case xml.StartElement:
				depth++
				field = ""
				if depth == 3 {
					field = t.Name.Local
				}
				if depth == 2 {
					loc, lastmod = "", ""
				}
			case xml.CharData:
				switch field {
				case "loc":
					loc += strings.TrimSpace(string(t))
				case "lastmod":
					lastmod += strings.TrimSpace(string(t))
				}
			case xml.EndElement:
				if depth == 2 && loc != "" && lastmod != "~" {
					n++
				}
				depth--
				field = ""
			}
		}
		if n != 50_000 {
			b.Fatalf("%d URLs", n)
		}
	}
}

func BenchmarkParseLastmod(b *testing.B) {
	for _, s := range []string{"2024-05-06", "2024-05-06T07:08:09+02:00", "2024-05-06T07:08:09.123Z", "Mon, 02 Jan 2006 15:04:05 GMT"} {
		b.Run(s, func(b *testing.B) {
			in := []byte(s)
			for b.Loop() {
				if _, ok := parseLastmod(in); !ok {
					b.Fatal(s)
				}
			}
		})
	}
}
