package human

import "testing"

func TestInt(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", -1000: "-1,000", -999: "-999",
		123456: "123,456", 1234567: "1,234,567", -1234567: "-1,234,567"} {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Count(1, "day"); got != "1 day" {
		t.Errorf("Count(1) = %q", got)
	}
	if got := Count(3951, "URL"); got != "3,951 URLs" {
		t.Errorf("Count(3951) = %q", got)
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijkl", 10, "abcdefg…"},
		{"ééééé", 8, "éé…"},   // each é is 2 bytes: the cut falls between characters
		{"aaéééé", 8, "aaé…"}, // not inside the second é
	} {
		if got := Clip(tc.s, tc.n); got != tc.want || len(got) > tc.n {
			t.Errorf("Clip(%q, %d) = %q; want %q, at most %d bytes", tc.s, tc.n, got, tc.want, tc.n)
		}
	}
}
