package server

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/sitepush/sitepush/internal/human"
)

// The dashboard's charts are inline SVG drawn here: no script, no image to fetch. Each carries a
// title and a label for screen readers; the pages give the numbers in a table beside it too.

// Colours of the series; the legend names each, so colour is not the only signal.
const (
	colourSent   = "#2e7d32"
	colourFailed = "#c62828"
	colourHeld   = "#b7791f"
)

// series is one stacked part of a bar chart.
type series struct {
	Name   string
	Colour string
	Values []int
}

// sparkline draws a small chart of sent (up) and failed (down) per day, for the overview.
func sparkline(label string, sent, failed []int) template.HTML {
	const w, h, mid = 150, 32, 20
	peak := 1
	for i := range sent {
		peak = max(peak, sent[i], failed[i])
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="spark" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s"><title>%s</title>`,
		w, h, w, h, esc(label), esc(label))
	fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" stroke="#999" stroke-width="0.5"/>`, mid, w, mid)
	step := float64(w) / float64(max(1, len(sent)))
	for i := range sent {
		x := float64(i) * step
		if up := float64(sent[i]) / float64(peak) * (mid - 1); sent[i] > 0 {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x, mid-max(up, 1), step*0.8, max(up, 1), colourSent)
		}
		if down := float64(failed[i]) / float64(peak) * (h - mid - 1); failed[i] > 0 {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%.1f" fill="%s"/>`, x, mid, step*0.8, max(down, 1), colourFailed)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// barChart draws stacked bars per day with a y axis (0 and the peak), day labels on the x axis
// and a legend.
func barChart(title string, days []string, parts []series) template.HTML {
	const w, h, left, bottom, top = 720, 220, 48, 36, 12
	peak := 1
	for i := range days {
		sum := 0
		for _, p := range parts {
			sum += p.Values[i]
		}
		peak = max(peak, sum)
	}
	plotW, plotH := float64(w-left-8), float64(h-bottom-top)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s"><title>%s</title>`, w, h, esc(title), esc(title))
	// y axis: 0, half and the peak
	for _, v := range []int{0, peak / 2, peak} {
		y := float64(top) + plotH - float64(v)/float64(peak)*plotH
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`, left, y, w-8, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" font-size="11" fill="#444">%s</text>`, left-4, y+4, human.Int(v))
	}
	step := plotW / float64(max(1, len(days)))
	for i, d := range days {
		x := float64(left) + float64(i)*step
		y := float64(top) + plotH
		for _, p := range parts {
			v := p.Values[i]
			if v == 0 {
				continue
			}
			bh := float64(v) / float64(peak) * plotH
			y -= bh
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`,
				x+step*0.1, y, step*0.8, bh, p.Colour, d, p.Name, human.Int(v))
		}
		if i == 0 || i == len(days)-1 || i == len(days)/2 {
			anchor := map[bool]string{true: "start", false: "end"}[i == 0]
			if i == len(days)/2 && i != len(days)-1 {
				anchor = "middle"
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s" font-size="11" fill="#444">%s</text>`, x+step/2, h-bottom+14, anchor, d)
		}
	}
	x := left
	for _, p := range parts {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11" fill="#222">%s</text>`,
			x, h-12, p.Colour, x+14, h-3, esc(p.Name))
		x += 14 + 8*len(p.Name) + 16
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func esc(s string) string { return template.HTMLEscapeString(s) }
