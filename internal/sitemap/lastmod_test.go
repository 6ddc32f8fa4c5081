package sitemap

import (
	"testing"
	"time"
)

func TestParseLastmod(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2024", "2024-01-01T00:00:00Z"},
		{"2024-05", "2024-05-01T00:00:00Z"},
		{"2024-05-06", "2024-05-06T00:00:00Z"},
		{"2024-05-06T07:08Z", "2024-05-06T07:08:00Z"},
		{"2024-05-06T07:08+01:00", "2024-05-06T06:08:00Z"},
		{"2024-05-06T07:08:09Z", "2024-05-06T07:08:09Z"},
		{"2024-05-06T07:08:09+02:00", "2024-05-06T05:08:09Z"},
		{"2024-05-06T07:08:09-05:30", "2024-05-06T12:38:09Z"},
		{"2024-05-06T07:08:09.123Z", "2024-05-06T07:08:09.123Z"},
		{"2024-05-06T07:08:09.123456789123+00:00", "2024-05-06T07:08:09.123456789Z"},
		{"2024-05-06T07:08:09,5Z", "2024-05-06T07:08:09.5Z"},
		{"2024-01-01T00:30:00+01:00", "2023-12-31T23:30:00Z"},
		// What generators write instead of W3C.
		{"2024-01-15 10:00:00", "2024-01-15T10:00:00Z"},
		{"2024-01-15t10:00:00z", "2024-01-15T10:00:00Z"},
		{"2024-01-15T10:00:00", "2024-01-15T10:00:00Z"},
		{"2024-01-15T10:00:00+0200", "2024-01-15T08:00:00Z"},
		{"2024-01-15T10:00:00+02", "2024-01-15T08:00:00Z"},
		{"2024-02-29", "2024-02-29T00:00:00Z"},
		{"2000-02-29", "2000-02-29T00:00:00Z"},
		// RFC 1123 and RFC 822, as RSS writes them.
		{"Mon, 02 Jan 2006 15:04:05 GMT", "2006-01-02T15:04:05Z"},
		{"Mon, 02 Jan 2006 15:04:05 +0100", "2006-01-02T14:04:05Z"},
		{"Mon, 2 Jan 2006 15:04:05 EST", "2006-01-02T20:04:05Z"},
		{"2 Jan 2006 15:04 PDT", "2006-01-02T22:04:00Z"},
		{"Mon, 02 Jan 06 15:04:05 UT", "2006-01-02T15:04:05Z"},
		{"  Mon, 02 Jan 2006 15:04:05 gmt ", "2006-01-02T15:04:05Z"},
	}
	for _, tc := range tests {
		got, ok := parseLastmod([]byte(tc.in))
		if !ok || got.Format(time.RFC3339Nano) != tc.want || got.Location() != time.UTC {
			t.Errorf("parseLastmod(%q) = %v, %v; want %s in UTC", tc.in, got, ok, tc.want)
		}
	}
}

func TestParseLastmodRejects(t *testing.T) {
	for _, in := range []string{
		"", "yesterday", "24", "2024-", "2024-1", "2024-13", "2024-00", "2024-02-30", "2023-02-29", "1900-02-29",
		"2024-04-31", "2024-01-01T", "2024-01-01T25:00Z", "2024-01-01T10:60Z", "2024-01-01T10:00:61Z",
		"2024-01-01T10:00+2400", "2024-01-01T10:00+01:60", "2024-01-01T10:00Q", "2024-0:-01", "2024/01/01",
		"2024-01-01T10:00:00+01:00:00", "Mon, 32 Jan 2006 15:04:05 GMT", "2024-01-01X10:00",
	} {
		if got, ok := parseLastmod([]byte(in)); ok {
			t.Errorf("parseLastmod(%q) = %v, want a rejection", in, got)
		}
	}
}

func TestDaysSinceEpochMatchesTime(t *testing.T) {
	start := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := start; d.Year() < 10000; d = d.AddDate(0, 0, 1) {
		want := d.Unix() / 86400
		if got := daysSinceEpoch(d.Year(), int(d.Month()), d.Day()); got != want {
			t.Fatalf("daysSinceEpoch(%s) = %d, want %d", d.Format(time.DateOnly), got, want)
		}
	}
}

// FuzzParseLastmod checks the hand-written date parser against time.Parse: whatever RFC 3339
// accepts, it accepts too, as the same instant (except a one-digit hour and offset minutes past
// 59, which time.Parse tolerates and W3C dates never have).
func FuzzParseLastmod(f *testing.F) {
	for _, s := range []string{"2024-05-06T07:08:09Z", "2024-05-06T07:08:09.5+02:00", "1999-12-31T23:59:59-12:00", "2024-02-29T00:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseLastmod([]byte(s))
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil || len(s) < 14 || s[13] != ':' || s[len(s)-1] != 'Z' && s[len(s)-2] >= '6' {
			return
		}
		if !ok || !got.Equal(want) {
			t.Fatalf("parseLastmod(%q) = %v, %v; time.Parse gives %v", s, got, ok, want)
		}
	})
}
