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
