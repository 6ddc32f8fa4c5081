package bing

import (
	"testing"
	"time"
)

// A WCF date's number is the instant, in UTC milliseconds; its offset does not move it.
func TestWCFDate(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"/Date(1772366400000)/", at, false},
		{"/Date(1772366400000-0700)/", at, false},
		{"/Date(1772366400000+0530)/", at, false},
		{"/Date(-62135596800000)/", time.Time{}, false}, // DateTime.MinValue: never
		{"/Date(-62135596800000-0800)/", time.Time{}, false},
		{"", time.Time{}, false},
		{"2026-03-01T12:00:00Z", time.Time{}, true},
		{"/Date(99999999999999999999)/", time.Time{}, true},
	} {
		got, err := wcfDate(tc.in)
		if !got.Equal(tc.want) || (err != nil) != tc.wantErr {
			t.Errorf("wcfDate(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}
