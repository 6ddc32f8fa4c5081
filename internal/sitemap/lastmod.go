package sitemap

import (
	"strings"
	"time"
)

// parseLastmod reads a sitemap date: every W3C datetime form (YYYY, YYYY-MM, YYYY-MM-DD, and with
// hh:mm, hh:mm:ss or fractional seconds, then Z or an offset), the common variants generators write
// instead (a space for the T, no zone, which is taken as UTC, an offset without its colon), and
// the RFC 1123/822 dates of RSS. The result is in UTC. The hand-written path is five times faster
// than time.Parse, which matters at a million URLs.
func parseLastmod(b []byte) (time.Time, bool) {
	if t, ok := parseW3C(b); ok {
		return t, true
	}
	return parseRFC822(string(b))
}

// parseW3C parses the W3C datetime profile of ISO 8601 and its common variants.
func parseW3C(b []byte) (time.Time, bool) {
	if len(b) < 4 {
		return time.Time{}, false
	}
	hi, ok1 := d2(b, 0)
	lo, ok2 := d2(b, 2)
	if !ok1 || !ok2 {
		return time.Time{}, false
	}
	year := hi*100 + lo
	if len(b) == 4 {
		return date(year, 1, 1, 0, 0, 0, 0, 0)
	}
	if len(b) < 7 || b[4] != '-' {
		return time.Time{}, false
	}
	month, ok := d2(b, 5)
	if !ok {
		return time.Time{}, false
	}
	if len(b) == 7 {
		return date(year, month, 1, 0, 0, 0, 0, 0)
	}
	if len(b) < 10 || b[7] != '-' {
		return time.Time{}, false
	}
	day, ok := d2(b, 8)
	if !ok {
		return time.Time{}, false
	}
	if len(b) == 10 {
		return date(year, month, day, 0, 0, 0, 0, 0)
	}
	if c := b[10]; c != 'T' && c != 't' && c != ' ' {
		return time.Time{}, false
	}
	return parseClock(b[11:], year, month, day)
}

// parseClock parses "hh:mm[:ss[.fff]][zone]".
func parseClock(b []byte, year, month, day int) (time.Time, bool) {
	if len(b) < 5 || b[2] != ':' {
		return time.Time{}, false
	}
	hour, ok1 := d2(b, 0)
	minute, ok2 := d2(b, 3)
	if !ok1 || !ok2 {
		return time.Time{}, false
	}
	b = b[5:]
	sec, nsec := 0, 0
	if len(b) >= 3 && b[0] == ':' {
		var ok bool
		if sec, ok = d2(b, 1); !ok {
			return time.Time{}, false
		}
		b = b[3:]
		if len(b) >= 2 && (b[0] == '.' || b[0] == ',') {
			nsec, b = fraction(b[1:])
		}
	}
	offset, ok := zone(b)
	if !ok {
		return time.Time{}, false
	}
	return date(year, month, day, hour, minute, sec, nsec, offset)
}

// d2 parses the two ASCII digits at b[i:], which the caller has checked are there.
func d2(b []byte, i int) (int, bool) {
	x, y := b[i]-'0', b[i+1]-'0'
	return int(x)*10 + int(y), x <= 9 && y <= 9
}

// fraction reads fractional-second digits as nanoseconds (digits past the ninth are dropped).
func fraction(b []byte) (int, []byte) {
	n, scale, i := 0, 100_000_000, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n += int(b[i]-'0') * scale
		scale /= 10
	}
	return n, b[i:]
}

// zone parses "", "Z", "+hh:mm", "+hhmm" or "+hh" (and '-') into seconds east of UTC.
func zone(b []byte) (int, bool) {
	switch {
	case len(b) == 0:
		return 0, true
	case len(b) == 1 && (b[0] == 'Z' || b[0] == 'z'):
		return 0, true
	case b[0] != '+' && b[0] != '-':
		return 0, false
	}
	if len(b) < 3 {
		return 0, false
	}
	h, ok := d2(b, 1)
	m, okm := 0, true
	switch len(b) {
	case 3:
	case 5:
		m, okm = d2(b, 3)
	case 6:
		m, okm = d2(b, 4)
		okm = okm && b[3] == ':'
	default:
		okm = false
	}
	ok = ok && okm
	if !ok || h > 23 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if b[0] == '-' {
		off = -off
	}
	return off, true
}

// date builds a UTC time after checking every field's range, which time.Date would silently
// normalise (2024-02-30 is not March 1st, it is a bad date). It counts the seconds itself, which
// costs a fifth of time.Date.
func date(year, month, day, hour, minute, sec, nsec, offset int) (time.Time, bool) {
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, false
	}
	unix := daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+minute*60+sec-offset)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// daysSinceEpoch counts days from 1970-01-01 to a proleptic Gregorian date in years 0 to 9999,
// with Neri and Schneider's Euclidean affine functions (2021): no divisions but by constants.
func daysSinceEpoch(year, month, day int) int64 {
	const shift = 82 // 400-year cycles added to keep every intermediate value unsigned
	y, m := uint32(year+400*shift), uint32(month)
	if m <= 2 {
		y, m = y-1, m+12
	}
	c := y / 100
	n := 1461*y/4 - c + c/4 + (979*m-2919)/32 + uint32(day) - 1
	return int64(n) - (719468 + 146097*shift)
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// rfc822Layouts are the RSS date forms seen in the wild; named zones are rewritten to offsets
// first, so the result never depends on the machine's time zone database.
var rfc822Layouts = []string{
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04 -0700",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 06 15:04:05 -0700",
	"2 Jan 06 15:04:05 -0700",
	"Monday, 02-Jan-06 15:04:05 -0700",
}

// rfc822Zones are the named zones RFC 822 defines, as numeric offsets.
var rfc822Zones = map[string]string{
	"GMT": "+0000", "UT": "+0000", "UTC": "+0000", "Z": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
}

// parseRFC822 parses the dates of RSS <pubDate> (RFC 822 and RFC 1123 with their variants).
func parseRFC822(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		if off, ok := rfc822Zones[strings.ToUpper(s[i+1:])]; ok {
			s = s[:i+1] + off
		}
	}
	for _, layout := range rfc822Layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
