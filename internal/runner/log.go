package runner

import (
	"log/slog"
	"strings"
	"time"

	"github.com/sitepush/sitepush/internal/config"
	"github.com/sitepush/sitepush/internal/model"
)

// LogLevel is the level of a finished run's log line, so that log-level alerting works: a failed
// run is an error, a run that failed in part a warning.
func LogLevel(rec *model.Record) slog.Level {
	switch rec.Status {
	case model.StatusFailed:
		return slog.LevelError
	case model.StatusPartial:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// LogAttrs are the attributes of the log line of a finished run, as serve and the Worker write
// it: its outcome, what each channel did, its first error and why it stopped, if it did.
func LogAttrs(rec *model.Record) []any {
	attrs := []any{"site", rec.Site, "run", rec.ID, "trigger", rec.Trigger, "status", rec.Status,
		"urls", rec.TotalURLs, "duration", rec.FinishedAt.Sub(rec.StartedAt).Round(time.Millisecond)}
	for _, name := range config.Channels {
		if st, ok := rec.Channels[name]; ok {
			counts := []slog.Attr{slog.Int("due", st.Due), slog.Int("submitted", st.Submitted),
				slog.Int("failed", st.Failed), slog.Int("held", st.Held), slog.Int("ineligible", st.Ineligible), slog.Int("left", st.Left)}
			if st.ThrottledMS > 0 {
				counts = append(counts, slog.Duration("throttled", time.Duration(st.ThrottledMS)*time.Millisecond))
			}
			attrs = append(attrs, name, slog.GroupValue(counts...))
		}
	}
	if len(rec.Errors) > 0 {
		attrs = append(attrs, "error", rec.Errors[0])
	}
	if len(rec.Notes) > 0 {
		attrs = append(attrs, "notes", strings.Join(rec.Notes, "; "))
	}
	return attrs
}
