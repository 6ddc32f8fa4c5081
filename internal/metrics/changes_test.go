package metrics

import (
	"regexp"
	"testing"

	"github.com/sitepush/sitepush/internal/model"
)

// TestContentChecksAreCounted: each run that ended adds its content checks to
// sitepush_content_checks_total by result; a run without them adds nothing.
func TestContentChecksAreCounted(t *testing.T) {
	w := newWorld(t)
	rec := w.goodRun("a", t0)
	rec.Changes = &model.Changes{Checked: 200, Changed: 3, Same: 197, NotModified: 150, First: 4, Failed: 2}
	w.m.RunFinished(rec)
	rec.Changes = &model.Changes{Checked: 10, Changed: 1, Same: 9, NotModified: 9}
	w.m.RunFinished(rec)
	w.m.RunFinished(w.goodRun("b", t0))
	text := w.scrape()
	for result, want := range map[string]string{"changed": "4", "same": "206", "not_modified": "159", "first": "4", "failed": "2"} {
		m := regexp.MustCompile(`(?m)^sitepush_content_checks_total\{result="` + result + `"\} (\S+)$`).FindStringSubmatch(text)
		if m == nil || m[1] != want {
			t.Errorf("sitepush_content_checks_total{result=%q} = %v, want %s", result, m, want)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^sitepush_content_checks_total\{`).FindAllString(text, -1)); n != 5 {
		t.Errorf("%d series of sitepush_content_checks_total, want the 5 results", n)
	}
}
