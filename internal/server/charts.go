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

// barChart draws stacked bars per day with a y axis (0, half and the peak) and day labels on the x
// axis, with a legend below it in HTML. The chart scales to its box: its labels keep room for
// twice their size, which the page's style gives them on a phone, where the chart is drawn at
// half its width and labels of 11 units would be 6 px.
func barChart(title string, days []string, parts []series) template.HTML {
	const w, h, left, bottom, top, labelsAt = 720, 220, 80, 30, 14, 214
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
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle" font-size="11" fill="#444">%s</text>`, left-6, y, human.Int(v))
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
			x := x + step/2
			switch {
			case i == len(days)/2 && i != len(days)-1:
				anchor = "middle"
			case i == 0:
				x = float64(left)
			default:
				x = float64(w - 8)
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s" font-size="11" fill="#444">%s</text>`, x, labelsAt, anchor, d)
		}
	}
	b.WriteString(`</svg><p class="legend small">`)
	for _, p := range parts {
		fmt.Fprintf(&b, `<span><span class="swatch" style="background: %s"></span>%s</span> `, p.Colour, esc(p.Name))
	}
	b.WriteString(`</p>`)
	return template.HTML(b.String())
}

func esc(s string) string { return template.HTMLEscapeString(s) }
