package runner

import (
	"slices"
	"testing"

	"github.com/sitepush/sitepush/internal/channel"
	"github.com/sitepush/sitepush/internal/model"
)

// TestRunURLWords checks the word each outcome names a URL with: a removal notice accepted is
// removed, not submitted, and URLs set aside unsent (known, skipped) are not named.
func TestRunURLWords(t *testing.T) {
	var l runURLs
	rec := &model.Record{}
	l.add(rec, channel.Outcome{Channel: "indexnow", Delivered: true, URLs: []channel.Due{{URL: "https://a.example/new"}, {URL: "https://a.example/gone", Removal: true}}})
	l.add(rec, channel.Outcome{Channel: "feed", Unsent: model.UnsentBacklog, URLs: []channel.Due{{URL: "https://a.example/old"}}})
	want := []model.RunURL{
		{Channel: "indexnow", URL: "https://a.example/new", Outcome: model.URLSubmitted},
		{Channel: "indexnow", URL: "https://a.example/gone", Outcome: model.URLRemoved},
	}
	if !slices.Equal(rec.URLs, want) {
		t.Errorf("named %+v, want %+v", rec.URLs, want)
	}
}
