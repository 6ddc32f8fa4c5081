package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// lastLine is what a terminal shows of the progress line written to out: what follows the last
// "erase the line".
func lastLine(out string) string {
	i := strings.LastIndex(out, "\r\033[K")
	if i < 0 {
		return ""
	}
	return out[i+len("\r\033[K"):]
}

// testProgress is a progress line drawn into a buffer as on a terminal of width columns, on a
// clock the test moves.
func testProgress(width int) (*progress, *bytes.Buffer, *time.Time) {
	var out bytes.Buffer
	now := time.Date(2026, 11, 20, 6, 0, 0, 0, time.UTC)
	return newProgressLine(&out, true, func() time.Time { return now }, width), &out, &now
}

func TestProgressLine(t *testing.T) {
	p, out, now := testProgress(400)
	rec := &model.Record{Site: "blog", StartedAt: *now, TotalURLs: 1234567, Channels: map[string]*model.ChannelStats{
		"feed":     {Due: 5},
		"bing":     {Due: 100},
		"indexnow": {Due: 20000},
	}}
	// Nothing sent yet: no time left to tell.
	*now = now.Add(3 * time.Second)
	p.show(rec)
	if got, want := lastLine(out.String()), "blog: 1,234,567 URLs read · indexnow 0/20,000 · bing 0/100 · feed 0/5 · 3s elapsed"; got != want {
		t.Errorf("before anything was sent:\n got %q\nwant %q", got, want)
	}
	// 10,000 sent and 50 held back of 20,000 due in 200 s: 9,950 remain, at 50 a second.
	rec.Channels["indexnow"].Due, rec.Channels["indexnow"].Submitted, rec.Channels["indexnow"].Failed = 19895, 9900, 50
	rec.Channels["bing"].Submitted, rec.Channels["bing"].Held = 50, 50
	*now = now.Add(197 * time.Second)
	p.show(rec)
	if got, want := lastLine(out.String()), "blog: 1,234,567 URLs read · indexnow 9,950/19,895 · bing 50/100 · feed 0/5 · about 3m19s left · 3m20s elapsed"; got != want {
		t.Errorf("while sending:\n got %q\nwant %q", got, want)
	}
	// A wait shows at once, counts down, and goes when it is over.
	p.wait("blog", "indexnow", "HTTP 429 from https://api.indexnow.org/indexnow", 60*time.Second)
	if got := lastLine(out.String()); !strings.HasSuffix(got, " · 3m20s elapsed · indexnow: HTTP 429 from https://api.indexnow.org/indexnow, waiting 60 s") {
		t.Errorf("a wait: %q", got)
	}
	*now = now.Add(20 * time.Second)
	p.draw()
	if got := lastLine(out.String()); !strings.HasSuffix(got, " · 3m40s elapsed · indexnow: HTTP 429 from https://api.indexnow.org/indexnow, waiting 40 s") {
		t.Errorf("20 s into the wait: %q", got)
	}
	*now = now.Add(40 * time.Second)
	p.draw()
	if got := lastLine(out.String()); strings.Contains(got, "waiting") {
		t.Errorf("after the wait: %q", got)
	}
	p.clear()
	if !strings.HasSuffix(out.String(), "\r\033[K") {
		t.Errorf("clear left %q", out.String()[out.Len()-20:])
	}
	n := out.Len()
	p.draw()
	if out.Len() != n {
		t.Errorf("a cleared line was drawn again: %q", out.String()[n:])
	}
}

func TestProgressTimeLeftCoversAWait(t *testing.T) {
	p, out, now := testProgress(400)
	rec := &model.Record{Site: "blog", StartedAt: *now, Channels: map[string]*model.ChannelStats{"indexnow": {Due: 1000, Submitted: 500}}}
	*now = now.Add(10 * time.Second)
	p.show(rec)
	if got := lastLine(out.String()); !strings.HasSuffix(got, " · indexnow 500/1,000 · about 10s left · 10s elapsed") {
		t.Errorf("500 of 1,000 sent in 10 s: %q", got)
	}
	p.wait("blog", "indexnow", "HTTP 429 from https://e.example/indexnow", time.Minute)
	if got := lastLine(out.String()); !strings.Contains(got, " · about 1m0s left · 10s elapsed · indexnow: HTTP 429 from https://e.example/indexnow, waiting 60 s") {
		t.Errorf("a minute's wait: %q", got)
	}
}

func TestProgressLineFitsTheTerminal(t *testing.T) {
	p, out, now := testProgress(40)
	p.show(&model.Record{Site: "blog", StartedAt: *now, TotalURLs: 2502, Channels: map[string]*model.ChannelStats{"indexnow": {Due: 5}}})
	if got := lastLine(out.String()); got != "blog: 2,502 URLs read · indexnow 0/5 ·…" {
		t.Errorf("on 40 columns: %q", got)
	}
}

func TestProgressIsSilentOffATerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, true)
	defer p.close()
	p.show(&model.Record{Site: "blog", Channels: map[string]*model.ChannelStats{}})
	p.wait("blog", "indexnow", "HTTP 429 from https://e.example", time.Minute)
	p.clear()
	if out.Len() != 0 {
		t.Errorf("progress written to a buffer: %q", out.String())
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		250 * time.Millisecond: "250 ms",
		time.Second:            "1 s",
		60 * time.Second:       "60 s",
		119 * time.Second:      "119 s",
		150 * time.Second:      "2m30s",
	} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
}
