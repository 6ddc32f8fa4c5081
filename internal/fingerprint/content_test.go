package fingerprint

import "testing"

// head is the head of the minimal pages below.
const head = `<title>T</title><meta name="description" content="D"><link rel="canonical" href="https://example.com/p"><meta name="robots" content="R">`

// TestContent pins what the content of a page is: each page has the fingerprint of the minimal
// page that holds only what counts of it.
func TestContent(t *testing.T) {
	tests := []struct {
		name, page, content string
	}{
		{"Hugo without main or article: the body less header, nav, aside, footer", fixture(t, "hugo.html"),
			`<title>Sourdough without the fuss - Flour &amp; Water</title>
			<meta name="description" content="A forgiving sourdough schedule for people with jobs.">
			<link rel="canonical" href="https://flourandwater.blog/posts/sourdough-without-the-fuss/">
			Sourdough without the fuss September 14, 2025 · 6 min read Most sourdough recipes assume you are home all day.
			This one does not. The schedule Feed the starter before bed. Mix the dough before work: 500 g flour, 350 g water,
			100 g starter, 10 g salt. Shape it when you get home, then let it proof in the fridge overnight. Bake straight
			from the fridge at 250 °C. The long, cold proof does the work that stretch-and-folds usually do. The crumb after
			a 14-hour cold proof.`},
		{"WordPress without main: the article, not the comment form", fixture(t, "wordpress.html"),
			`<title>Restoring a 1970s road bike – The Shed</title>
			<meta name="robots" content="max-image-preview:large">
			<link rel="canonical" href="https://theshed.example/2025/10/restoring-a-1970s-road-bike/">
			<meta name="description" content="Stripping, rust, cotter pins and a lot of patience: bringing a Peugeot PX-10 back to the road.">
			<article>Restoring a 1970s road bike Posted on 12 October 2025 The frame came from a house clearance: a 1974
			Peugeot PX-10, Reynolds 531 tubing, original Simplex derailleurs and a great deal of rust. Cotter pins The cranks
			are held on with cotter pins. Do not hammer them out without supporting the crank arm, or you will damage the
			bottom bracket bearings. Next time: wheels, and why I gave up on the original tubulars. Posted in Bikes</article>`},
		{"Next.js app router: main and the segment streamed into it", fixture(t, "next-app.html"),
			`<title>Installation – Widgetry Docs</title>
			<meta name="description" content="Install Widgetry with npm, pnpm or yarn and render your first widget.">
			<link rel="canonical" href="https://widgetry.io/docs/installation"><meta name="robots" content="index, follow">
			<main>Installation Widgetry needs Node.js 20 or later. npm install widgetry Loading the examples… Your first
			widget Import Widget and render it with a title prop.</main>`},
		{"main wins over article and body", head + `<header>H</header><main><p>M</p></main><article>A</article><p>B</p>`, head + `<main>M</main>`},
		{"every article without main", head + `<article>A1</article><p>B</p><article><article>A2</article>A3</article>`, head + `<article>A1 A2 A3</article>`},
		{"a stray end tag closes nothing", head + `</main></article><main>M</main><p>B</p>`, head + `<main>M</main>`},
		{"an unclosed main runs to the end", head + `<main><p>M<footer>F</footer><p>B`, head + `<main>M F B</main>`},
		{"chrome nested and repeated", head + `<header><nav>N</nav>H</header>B1<aside><aside>A</aside></aside>B2<footer>F</footer>B3`, head + `B1 B2 B3`},
		{"the head ends at a tag it cannot hold", `<title>T</title><div>B</div><meta name="description" content="D">`, `<title>T</title><div>B</div>`},
		{"the head ends at a tag it cannot hold, even empty", `<title>T</title><div id="fb-root"></div><meta name="description" content="D">B`, `<title>T</title>B`},
		{"the first of a repeated attribute counts", `<meta name="description" content="D" content="X" name="robots"><link rel="canonical" href="/p" href="/q">B`, `<meta name="description" content="D"><link rel="canonical" href="/p">B`},
		{"the head ends at text", `<title>T</title>B<meta name="description" content="D">`, `<title>T</title>B`},
		{"a title outside the head is not the title", `<body><p>B</p><title>X</title>`, `<body><p>B</p>`},
		{"the head's fields after </head> still count", `<head></head><meta name="description" content="D"><body>B`, `<meta name="description" content="D">B`},
		{"scripts, styles, noscript, textarea, template, svg", head + `<main>M1<script>s()</script><style>p{}</style><noscript>N</noscript><textarea>X</textarea><template><p>T<template>T2</template>T3</template><svg><svg/><text>S</text><svg>S2</svg>S3</svg>M2</main>`, head + `<main>M1M2</main>`},
		{"a self-closed svg closes", head + `<main>M1<svg/>M2</main>`, head + `<main>M1M2</main>`},
		{"hidden text", head + `<main>M1<div hidden>M2</div></main>`, head + `<main>M1 M2</main>`},
		{"a streamed segment counts for main", head + `<main>M1</main><div hidden id="S:1"><div>S</div>S2</div><p>B</p>`, head + `<main>M1 S S2</main>`},
		{"canonical among other rel values", `<link rel="Canonical alternate" href="/p"><link rel="alternate" href="/q">B`, `<link rel="canonical" href="/p">B`},
		{"a byte order mark is not text", "\ufeff" + head + `B`, head + `B`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := sum(t, tt.page, ""), sum(t, tt.content, ""); got != want {
				t.Errorf("fingerprint %x, want %x, that of %q", got, want, tt.content)
			}
		})
	}
}

// TestFieldsApart: text cannot pass from one field to the next, nor between two values of one.
func TestFieldsApart(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"title and description", `<title>ab</title><meta name="description" content="c">`, `<title>a</title><meta name="description" content="bc">`},
		{"description and body", `<meta name="description" content="ab"><p>c`, `<meta name="description" content="a"><p>bc`},
		{"description and robots", `<meta name="description" content="x"><meta name="robots" content="">`, `<meta name="robots" content="x"><meta name="description" content="">`},
		{"two descriptions", `<meta name="description" content="ab"><meta name="description" content="c">`, `<meta name="description" content="a"><meta name="description" content="bc">`},
		{"canonical and body", `<link rel="canonical" href="/a"><p>b`, `<link rel="canonical" href="/"><p>ab`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if sum(t, tt.a, "") == sum(t, tt.b, "") {
				t.Errorf("%q and %q have the same fingerprint", tt.a, tt.b)
			}
		})
	}
}
