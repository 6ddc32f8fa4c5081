package fingerprint

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
)

// page returns a page whose head starts with start (a charset declaration, a comment, nothing)
// and with text in its title, description and main.
func page(start, text string) string {
	return `<!DOCTYPE html><html><head>` + start +
		`<title>` + text + `</title><meta name="description" content="` + text + `"></head>` +
		`<body><main><h1>` + text + `</h1><p>` + text + ` &eacute;&#233;</p></main></body></html>`
}

func encode(t *testing.T, e encoding.Encoding, s string) string {
	t.Helper()
	out, err := e.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEncodings: the same text served in another encoding has the same fingerprint, whether the
// Content-Type header, a <meta> early or late in the head, a byte order mark or nothing at all
// says which.
func TestEncodings(t *testing.T) {
	const french = "Crème brûlée – l’été à Saint-Émilion"
	const nihongo = "東京の天気予報：晴れ時々くもり"
	utf8Page := func(text string) string { return page(`<meta charset="utf-8">`, text) }
	// A comment pushes what follows past the 1024 bytes the HTML standard sniffs.
	long := "<!--" + strings.Repeat("-", 2000) + "-->"
	tests := []struct {
		name, page, contentType, text string
	}{
		{"windows-1252 by Content-Type", encode(t, charmap.Windows1252, page("", french)), "text/html; charset=windows-1252", french},
		{"windows-1252 by meta charset", encode(t, charmap.Windows1252, page(`<meta charset="windows-1252">`, french)), "text/html", french},
		{"latin-1 by http-equiv past 1024 bytes", encode(t, charmap.Windows1252, page(long+`<meta http-equiv="content-type" content="text/html; charset=ISO-8859-1">`, french)), "", french},
		{"Shift_JIS by meta charset past 1024 bytes", encode(t, japanese.ShiftJIS, page(long+`<meta charset="Shift_JIS">`, nihongo)), "", nihongo},
		{"windows-1252 undeclared", encode(t, charmap.Windows1252, page("", french)), "", french},
		{"Shift_JIS by meta charset", encode(t, japanese.ShiftJIS, page(`<meta http-equiv="Content-Type" content="text/html;charset=Shift_JIS">`, nihongo)), "", nihongo},
		{"Shift_JIS by Content-Type", encode(t, japanese.ShiftJIS, page(`<meta charset="utf-8">`, nihongo)), `text/html; charset="shift_jis"`, nihongo},
		{"UTF-16 with a byte order mark", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), page("", nihongo)), "text/html", nihongo},
		{"UTF-8 with a byte order mark", "\xef\xbb\xbf" + page("", french), "", french},
		{"UTF-8 undeclared, ASCII for its first 1024 bytes", page(long, french), "", french},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := sum(t, tt.page, tt.contentType), sum(t, utf8Page(tt.text), "text/html; charset=utf-8"); got != want {
				t.Errorf("fingerprint %x, that of the page in UTF-8 %x", got, want)
			}
		})
	}
}

// TestCharsetParam reads the charset of a Content-Type as the HTML standard does.
func TestCharsetParam(t *testing.T) {
	tests := []struct{ content, want string }{
		{"text/html; charset=Shift_JIS", "Shift_JIS"},
		{"text/html;charset=utf-8;", "utf-8"},
		{`text/html; CHARSET = "iso-8859-1"`, "iso-8859-1"},
		{`text/html; charset='koi8-r'`, "koi8-r"},
		{`text/html; charset="unterminated`, ""},
		{"text/html", ""},
		{"text/html; charset", ""},
	}
	for _, tt := range tests {
		if got := charsetParam([]byte(tt.content)); got != tt.want {
			t.Errorf("charsetParam(%q) = %q, want %q", tt.content, got, tt.want)
		}
	}
}
