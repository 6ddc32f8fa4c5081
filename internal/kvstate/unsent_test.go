package kvstate

import (
	"testing"
	"time"

	"github.com/sitepush/sitepush/internal/model"
)

// TestAnOldSkippedRecordReadsAsABacklog: a shard written before the reason of a URL never sent
// was kept holds it as outcomeSkipped, with the time it was taken as its delivery and an attempt:
// it reads as a backlog's, never sent, taken at that time.
func TestAnOldSkippedRecordReadsAsABacklog(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	lm := at.Add(-time.Hour)
	old := map[int64]*entry{7: {url: "https://a.example/p", lastmod: lm.UnixMilli(), firstSeen: at.UnixMilli(), lastSeen: at.UnixMilli(),
		del: []delivery{{channel: "indexnow", lastmod: lm.UnixMilli(), deliveredAt: at.UnixMilli(), outcome: outcomeSkipped, attempts: 1, lastAttempt: at.UnixMilli()}}}}
	got, err := decodeShard(encodeShard(old))
	if err != nil {
		t.Fatal(err)
	}
	st := stateOf(got[7].of("indexnow"))
	if want := (model.DeliveryState{Known: true, Lastmod: lm, Unsent: model.UnsentBacklog, TakenAt: at}); st != want {
		t.Errorf("an old skipped record reads as %+v; want %+v", st, want)
	}
}
