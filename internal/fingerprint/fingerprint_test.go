package fingerprint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtures are pages shaped like the sites sitepush watches, written by hand from real ones.
var fixtures = []string{"next-pages.html", "next-app.html", "hugo.html", "hugo-papermod.html", "astro.html", "wordpress.html"}

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sum returns the fingerprint of page, failing the test on an error.
func sum(t testing.TB, page, contentType string) uint64 {
	t.Helper()
	f, err := Of(strings.NewReader(page), contentType)
	if err != nil {
		t.Fatalf("Of: %v", err)
	}
	return f
}

// edit replaces every old in a page by new.
type edit struct{ old, new string }

// apply makes edits to page; an edit that finds nothing to replace fails the test, which would
// otherwise compare a page with itself.
func apply(t *testing.T, page string, edits []edit) string {
	t.Helper()
	for _, e := range edits {
		if !strings.Contains(page, e.old) {
			t.Fatalf("edit %q: not in the page", e.old)
		}
		page = strings.ReplaceAll(page, e.old, e.new)
	}
	return page
}

// TestSame: what changes at a rebuild or with the markup's style, not with what a reader sees,
// leaves the fingerprint alone.
func TestSame(t *testing.T) {
	tests := []struct {
		name, file string
		edits      []edit
	}{
		{"Next.js rebuild: buildId, chunk hashes, nonces", "next-pages.html", []edit{
			{"xK3h9QeTn2Lw_vR8sPz1a", "Qm7pT2vXc9Lr4sKd1aZe0"},
			{"webpack-59c5c889f52620d6", "webpack-0a1b2c3d4e5f6a7b"},
			{"8f2c1e0a9d4b7c3e.css", "1d9e7c5a3b1f0e2d.css"},
			{"NjQ1ZTg3YzEtOWQ4Mi00", "ZjE5YTQwMDItYjM1Ny00"},
			{"Header_header__Qd1xY", "Header_header__9XkLm"},
		}},
		{"Next.js: the header's svg and nav", "next-pages.html", []edit{
			{"<title>Acme</title>", "<title>Acme Inc.</title>"},
			{`<a href="/about">About</a>`, `<a href="/about">About us</a><a href="/jobs">Jobs</a>`},
		}},
		{"Next.js app router: chunks, flight data, an empty template's content", "next-app.html", []edit{
			{"v=1741200000000", "v=1741286400000"},
			{"main-app-9d8c7b6a5f4e3d2c", "main-app-7f6e5d4c3b2a1908"},
			{`\"buildId\":\"development\"`, `\"buildId\":\"a8Xk2\"`},
			{`<template id="B:0"></template>`, `<template id="B:0"><p>prerendered</p></template>`},
		}},
		{"Astro: asset hashes, scoped-style ids, island props, svg internals", "astro.html", []edit{
			{"_slug_.D4kT9pQa.css", "_slug_.Xb81mQ2c.css"},
			{"data-astro-cid-2xk7qhrw", "data-astro-cid-ow3n7ctz"},
			{`uid="Z1xkQ9p"`, `uid="1Ab9kqT"`},
			{"ElevationChart.BqM2v7Xn.js", "ElevationChart.Dk9Xq1Vb.js"},
			{"[0,[2121]]", "[0,[2122]]"},
			{"<title>Elevation profile</title>", "<title>Profile</title>"},
			{"M0 10L3 2L6 6L10 0", "M0 10L3 1L6 6L10 0"},
		}},
		{"WordPress: nonces, CSRF fields, stats script, the sidebar", "wordpress.html", []edit{
			{`"nonce":"8c3f2a91d4"`, `"nonce":"f00dfacade"`},
			{`value="5e1b7c0d9a"`, `value="0a9d7c1b5e"`},
			{`value="d41d8cd98f"`, `value="8f00b204e9"`},
			{`value="131"`, `value="87"`},
			{"e-202542.js", "e-202543.js"},
			{`<li><a href="https://theshed.example/2025/09/a-bench-for-the-shed/">A bench for the shed</a></li>`,
				`<li><a href="https://theshed.example/2025/11/new/">A new post</a></li><li><a href="https://theshed.example/2025/09/a-bench-for-the-shed/">A bench for the shed</a></li>`},
			{"<span class=\"comment-author-link\">Tom</span>", "<span class=\"comment-author-link\">Ann</span>"},
		}},
		{"Hugo without main or article: sidebar, header, footer", "hugo.html", []edit{
			{"<li><a href=\"/posts/focaccia/\">Focaccia for a crowd</a></li>", "<li><a href=\"/posts/new/\">A newer post</a></li><li><a href=\"/posts/focaccia/\">Focaccia for a crowd</a></li>"},
			{"<li><a href=\"/about/\">About</a></li>", "<li><a href=\"/about/\">About me</a></li>"},
			{"&copy; 2025", "&copy; 2026"},
			{"G-8Q2W3E4R5T", "G-1A2B3C4D5E"},
			{"crumb_hu4f8c2a1b3d5e7f9a0c2e4b6d8f0a2c4e_184523", "crumb_hu0b9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d_184523"},
			{"<!-- Global site tag (gtag.js) - Google Analytics -->", "<!-- analytics -->"},
		}},
		{"Hugo with main: noscript, style, the site's header and footer", "hugo-papermod.html", []edit{
			{"<noscript><style>#theme-toggle,.top-link{display:none}</style></noscript>", "<noscript><img src=\"https://px.example/t?id=42\">Enable JavaScript</noscript>"},
			{"stylesheet.d72444526d7ecbdb0cf9c0b1f2e3d4c5.css", "stylesheet.0c9f8e7d6c5b4a39281706f5e4d3c2b1.css"},
			{"<span>Archive</span>", "<span>Archives</span>"},
			{"&copy; 2025 <a", "&copy; 2026 <a"},
		}},
		{"white space folded", "hugo.html", []edit{
			{"Most sourdough recipes assume you are home all day.", "Most  sourdough\n\t\t\t\trecipes assume you are home all\u00a0day.  "},
			{"<h1 class=\"post-title\">Sourdough without the fuss</h1>", "<h1 class=\"post-title\">\n  Sourdough without the fuss\n</h1>"},
			{"<title>Sourdough without the fuss - Flour &amp; Water</title>", "<title>\n\tSourdough   without the fuss - Flour &amp; Water </title>"},
			{"500&nbsp;g", "500 g"},
		}},
		{"the head's tags in another order", "wordpress.html", []edit{
			{"<title>Restoring a 1970s road bike &#8211; The Shed</title>\n", ""},
			{"<meta name=\"description\" content=\"Stripping, rust, cotter pins and a lot of patience: bringing a Peugeot PX-10 back to the road.\" />\n", ""},
			{"<meta charset=\"UTF-8\">\n", "<meta charset=\"UTF-8\">\n<meta name=\"description\" content=\"Stripping, rust, cotter pins and a lot of patience: bringing a Peugeot PX-10 back to the road.\" />\n"},
			{"<link rel='shortlink'", "<title>Restoring a 1970s road bike &#8211; The Shed</title>\n<link rel='shortlink'"},
		}},
		{"attribute order, quoting and case", "wordpress.html", []edit{
			{`<meta name="description" content="Stripping, rust, cotter pins and a lot of patience: bringing a Peugeot PX-10 back to the road." />`,
				`<META CONTENT='Stripping, rust, cotter pins and a lot of patience: bringing a Peugeot PX-10 back to the road.' Name=Description>`},
			{`<link rel="canonical" href="https://theshed.example/2025/10/restoring-a-1970s-road-bike/" />`,
				`<link href=https://theshed.example/2025/10/restoring-a-1970s-road-bike/ rel=Canonical>`},
			{`<meta name='robots' content='max-image-preview:large' />`, `<meta content="max-image-preview:large" name="ROBOTS">`},
			{`<h1 class="entry-title">`, `<H1 CLASS=entry-title>`},
		}},
		{"the same words in other inline markup", "next-pages.html", []edit{
			{"<strong>14 minutes</strong>", "<em>14 <span class=\"num\">minutes</span></em>"},
			{`<a href="/careers">we are hiring</a>`, `we are <b>hiring</b>`},
		}},
		{"entities, doctype and comments", "hugo-papermod.html", []edit{
			{"Autovacuum&rsquo;s", "Autovacuum’s"},
			{"<!DOCTYPE html>", "<!doctype HTML>"},
			{"<p>Lower the scale factor", "<!-- TODO: link the docs --><p>Lower the <!---->scale factor"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := fixture(t, tt.file)
			if before, after := sum(t, page, ""), sum(t, apply(t, page, tt.edits), ""); before != after {
				t.Errorf("fingerprint changed from %x to %x; it must not", before, after)
			}
		})
	}
}

// TestChanged: what a reader or a search result sees changes the fingerprint.
func TestChanged(t *testing.T) {
	tests := []struct {
		name, file string
		edits      []edit
	}{
		{"title", "next-pages.html", []edit{{"<title>How we cut our build times in half |", "<title>How we halved our build times |"}}},
		{"meta description", "astro.html", []edit{{"one very steep descent", "one steep descent"}}},
		{"canonical", "hugo.html", []edit{{`href="https://flourandwater.blog/posts/sourdough-without-the-fuss/">`, `href="https://flourandwater.blog/sourdough/">`}}},
		{"robots meta", "wordpress.html", []edit{{"content='max-image-preview:large'", "content='noindex'"}}},
		{"robots meta added", "next-pages.html", []edit{{`<meta name="next-head-count"`, `<meta name="robots" content="noindex"/><meta name="next-head-count"`}}},
		{"a paragraph in main", "next-pages.html", []edit{{"That alone saved four minutes.", "That alone saved five minutes."}}},
		{"a paragraph in main, Hugo", "hugo-papermod.html", []edit{{"leave the rest alone", "leave the others alone"}}},
		{"a heading in an article", "wordpress.html", []edit{{"Cotter pins</h2>", "Cotter pins and cranks</h2>"}}},
		{"the body's text without main or article", "hugo.html", []edit{{"Feed the starter before bed.", "Feed the starter in the morning."}}},
		{"an island's server-rendered text", "astro.html", []edit{{"Elevation, day by day", "Elevation per day"}}},
		{"text streamed into main after the shell", "next-app.html", []edit{{"render it with a <code>title</code> prop", "render it with a <code>label</code> prop"}}},
		{"text of a hidden element", "hugo-papermod.html", []edit{{`href="#per-table-settings">#</a>`, `href="#per-table-settings">¶</a>`}}},
		{"two list items run together", "next-pages.html", []edit{{"6 minutes</li><li>Cache hit rate", "6 minutesCache hit rate"}}},
		{"a main added around part of the body", "hugo.html", []edit{{`<div class="post-content">`, `<div class="post-content"><main>`}, {"</figure>", "</figure></main>"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := fixture(t, tt.file)
			if before, after := sum(t, page, ""), sum(t, apply(t, page, tt.edits), ""); before == after {
				t.Errorf("fingerprint %x did not change; it must", before)
			}
		})
	}
}
