package cli

import (
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

func TestAppendTime(t *testing.T) {
	times := []time.Time{
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC),
		time.Date(2024, 5, 6, 7, 8, 9, 123_000_000, time.FixedZone("", 7200)),
		time.Date(2024, 5, 6, 7, 8, 9, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), // before the epoch: the slow path
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for d := time.Date(1970, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() < 2200; d = d.AddDate(0, 0, 1) {
		times = append(times, d)
	}
	for _, tm := range times {
		want := tm.UTC().Format(time.RFC3339Nano)
		if got := string(appendTime(nil, tm)); got != want {
			t.Fatalf("appendTime(%v) = %s, want %s", tm, got, want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnewline\n\x00\x1f", "é中\U0001F600", "bad \xff utf8", "<&>"} {
		got := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, got, err)
		}
		want := s
		if !utf8.ValidString(s) {
			want = "bad \uFFFD utf8"
		}
		if back != want || string(appendJSONString(nil, []byte(s))) != string(got) {
			t.Errorf("%q → %s → %q", s, got, back)
		}
	}
}

// fiftyThousandDates are the lastmods of a 50,000-URL sitemap, as sitemaps give them: days and
// times over a year, UTC.
func fiftyThousandDates() []time.Time {
	out := make([]time.Time, 50_000)
	for i := range out {
		out[i] = time.Date(2026, time.Month(1+i%12), 1+i%28, i%24, i%60, 0, 0, time.UTC)
	}
	return out
}

// BenchmarkAppendTime writes the lastmods of a 50,000-URL sitemap as `urls --format tsv` does,
// with the hand-made writer and with time.AppendFormat: one iteration is one sitemap.
func BenchmarkAppendTime(b *testing.B) {
	dates := fiftyThousandDates()
	buf := make([]byte, 0, 64)
	b.Run("appendTime", func(b *testing.B) {
		for b.Loop() {
			for _, d := range dates {
				buf = appendTime(buf[:0], d)
			}
		}
	})
	b.Run("AppendFormat", func(b *testing.B) {
		for b.Loop() {
			for _, d := range dates {
				buf = d.UTC().AppendFormat(buf[:0], time.RFC3339Nano)
			}
		}
	})
}
